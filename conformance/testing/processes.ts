// The processes a test started and everything they started in turn, read from /proc (Linux), so a test can
// tell that none of them outlives what was meant to stop them, and end any that does, by its id.
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessInfo {
  pid: number;
  /** Clock ticks since boot: tells this process from a later one given the same id. */
  startTime: string;
  command: string;
}

interface Stat extends ProcessInfo {
  ppid: number;
  state: string;
}

function readStat(pid: number): Stat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may itself hold spaces and parentheses.
    const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return { pid, state: fields[0] ?? '', ppid: Number(fields[1]), startTime: fields[19] ?? '', command };
  } catch {
    return undefined;
  }
}

/** The process `pid` and every process below it, as they are now. */
export function processTree(pid: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is Stat => stat !== undefined);
  const root = all.find((stat) => stat.pid === pid);
  if (!root) return [];
  const tree: Stat[] = [root];
  for (let index = 0; index < tree.length; index++) tree.push(...all.filter((stat) => stat.ppid === tree[index]!.pid));
  return tree.map(({ pid: id, startTime, command }) => ({ pid: id, startTime, command }));
}

/** Whether that very process still runs (a zombie has ended; only its exit status waits to be read). */
export function isRunning(process: ProcessInfo): boolean {
  const now = readStat(process.pid);
  return now !== undefined && now.startTime === process.startTime && now.state !== 'Z';
}

/** SIGKILL to those of `processes` still running: the clean-up after a test that failed to stop them. */
export function killRunning(processes: readonly ProcessInfo[]): void {
  for (const process of processes.filter(isRunning)) {
    try {
      globalThis.process.kill(process.pid, 'SIGKILL');
    } catch {
      // Gone in between.
    }
  }
}
