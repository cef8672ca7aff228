// How a server started from a terminal, by npm or by a supervisor is told to stop: SIGINT (Ctrl-C), SIGTERM
// (kill, a container stop, npm passing on its own SIGTERM) and SIGHUP (the terminal closing). Each is turned
// into one clean stop, whatever the number of signals: Ctrl-C under npm arrives twice (the terminal signals
// the whole process group and npm passes its copy on), and once Node has no listener left, a second signal
// would kill the process halfway through its stop, with the data directory still locked.
export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
export type StopSignal = (typeof STOP_SIGNALS)[number];

/** Calls `stop` on the first stop signal, and keeps later ones from killing the process; returns the undo. */
export function onStopSignal(stop: (signal: StopSignal) => void): () => void {
  let stopping = false;
  const listener = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    stop(signal as StopSignal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, listener);
  return () => {
    for (const signal of STOP_SIGNALS) process.off(signal, listener);
  };
}
