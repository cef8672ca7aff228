// One process per data directory: a lock file holding the owner's process id, created exclusively. A lock
// left by a process that is gone (killed, crashed) is taken over; one held by a running process, this one
// included, is refused. (A process id reused by an unrelated process since would keep the lock: remove the
// file by hand then.)
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DataDirInUseError } from './store.js';

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

const holderOf = (file: string): number | undefined => {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

/** Takes the lock `file`; returns its release. Throws DataDirInUseError if a running process holds it. */
export function lockDataDir(file: string): () => void {
  // Twice at most: once as found, once after clearing a stale lock (a rival that clears it first wins).
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && isRunning(holder)) break;
    rmSync(file, { force: true });
  }
  throw new DataDirInUseError(file);
}
