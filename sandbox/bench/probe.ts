// Loaded into each sandbox the bench starts (`node --import`), before the sandbox itself: answers the bench,
// over the IPC channel it spawned the sandbox with, how much CPU the process used and how long its event loop
// sat idle since the last question. From the two, the bench prints the sandbox's CPU per request and its idle
// share: a sandbox that is slow while its loop sits idle is waiting (on a timer, a queue, a lock), not computing.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/** One answer: what the process did since the previous question (or since it started). */
export interface ProbeAnswer {
  wallMs: number;
  /** CPU time of the whole process (every thread), user and system. */
  cpuMs: number;
  /** Time the event loop waited for something to do. */
  idleMs: number;
  /** 99th percentile and largest delay of the event loop (a timer or callback run late). */
  delayP99Ms: number;
  delayMaxMs: number;
}

if (process.send) {
  let cpu = process.cpuUsage();
  let loop = performance.eventLoopUtilization();
  let wall = performance.now();
  // How late timers and I/O callbacks ran: long synchronous work shows here as a long delay.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('message', (message: unknown) => {
    if (message !== 'probe') return;
    const used = process.cpuUsage(cpu);
    const looped = performance.eventLoopUtilization(loop);
    const now = performance.now();
    const answer: ProbeAnswer = {
      wallMs: now - wall,
      cpuMs: (used.user + used.system) / 1000,
      idleMs: looped.idle,
      delayP99Ms: delay.percentile(99) / 1e6,
      delayMaxMs: delay.max / 1e6,
    };
    cpu = process.cpuUsage();
    loop = performance.eventLoopUtilization();
    wall = now;
    delay.reset();
    process.send?.(answer);
  });
  // The channel must not keep the sandbox alive once it is asked to stop.
  process.channel?.unref();
}
