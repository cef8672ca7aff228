// Reading shared state again before a request, without a query per request under load: a caller waits for
// a load that started after it asked (so it sees every change committed before it arrived), and callers that
// ask while a load is under way share the next one.

/** `fresh()` resolves once a run of `load` that began after the call has finished (or rejects with its error). */
export function coalesced(load: () => Promise<void>): () => Promise<void> {
  let current: Promise<void> | undefined;
  let next: Promise<void> | undefined;
  const begin = (): Promise<void> => {
    const run = load().finally(() => {
      if (current === run) current = undefined;
    });
    current = run;
    return run;
  };
  return () => {
    if (!current) return begin();
    // A load is under way, begun before this call: wait for it, then share the one after it.
    next ??= current
      .catch(() => undefined)
      .then(() => {
        next = undefined;
        return begin();
      });
    return next;
  };
}
