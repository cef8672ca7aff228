// One process per data directory: a lock file holding the owner's process id and start time, created
// exclusively. A lock left by a process that is gone (killed, crashed) is taken over; one held by a running
// process, this one included, is refused. The start time (Linux: /proc/<pid>/stat) tells a live owner
// from a process that merely got the same id since: a container restarted on the same volume runs its
// sandbox under the same small id again, and must not find itself locked out. (Where there is no /proc,
// the id alone decides.)
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { DataDirInUseError } from './store.js';

/** A process's start time in clock ticks since boot, if the system says. */
function startTimeOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses); the start time is field 22.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists, as another user's process.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

interface Holder {
  pid: number;
  startTime: string | undefined;
}

const holderOf = (file: string): Holder | undefined => {
  try {
    const [pid, startTime] = readFileSync(file, 'utf8').trim().split(' ');
    const id = Number(pid);
    return Number.isInteger(id) && id > 0 ? { pid: id, startTime: startTime || undefined } : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
};

const isAlive = (holder: Holder): boolean => {
  if (!isRunning(holder.pid)) return false;
  const now = startTimeOf(holder.pid);
  return holder.startTime === undefined || now === undefined || now === holder.startTime;
};

/** Takes the lock `file`; returns its release. Throws DataDirInUseError if a running process holds it. */
export function lockDataDir(file: string): () => void {
  // Twice at most: once as found, once after clearing a stale lock (a rival that clears it first wins).
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(file, `${process.pid} ${startTimeOf(process.pid) ?? ''}\n`, { flag: 'wx' });
      return () => rmSync(file, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = holderOf(file);
    if (holder !== undefined && isAlive(holder)) break;
    rmSync(file, { force: true });
  }
  throw new DataDirInUseError(file);
}
