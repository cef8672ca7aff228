// Live progress while a run goes on. On a terminal: one line, rewritten in place, with the results and
// subjects done, the failures so far and what the suite is doing or waiting for (which check, which
// callback, how long the wait may still last, counted down). Elsewhere (CI logs): nothing, since the summary
// says it all and a rewritten line would only pile up carriage returns in the log; with `verbose`, one plain
// line per result and one per finished wait.
import type { CheckName, CheckResult, ProgressEvent } from '../types.js';

export interface ProgressStream {
  write: (text: string) => unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Progress {
  onResult: (result: CheckResult) => void;
  /**
   * What a check is doing or waiting for. A `waiting` event's `untilMs` is the latest end of the wait on the
   * same clock as `now` (performance.now() unless given), so the line can count it down.
   */
  onProgress: (event: ProgressEvent) => void;
  /** Clears the live line (terminal) so the summary starts on a clean line. */
  finish: () => void;
}

export interface ProgressOptions {
  /** Off a terminal, one line per result and per finished wait (by default nothing). */
  verbose?: boolean;
}

const LABEL = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;
/** How often the terminal line counts a wait down. */
const REFRESH_MS = 250;

/** The plain line for one result (the non-terminal form, also used in tests). */
export function resultLine(result: CheckResult): string {
  const detail =
    result.outcome === 'failed'
      ? `: ${result.findings.filter((f) => f.severity === 'failure').length} failure(s), first: ${result.findings.find((f) => f.severity === 'failure')?.message ?? ''}`
      : result.outcome === 'skipped'
        ? `: ${result.notApplicable ? 'not applicable: ' : ''}${result.skippedReason ?? 'no reason given'}`
        : ` (${result.cases} case${result.cases === 1 ? '' : 's'})`;
  return `${LABEL[result.outcome]} ${result.check} ${result.subject}${detail}`;
}

const seconds = (ms: number): string => `${(Math.max(0, ms) / 1000).toFixed(1)} s`;

/** The plain line for a finished wait (the CI form). */
export function waitedLine(event: Extract<ProgressEvent, { kind: 'waited' }>): string {
  return `WAIT ${event.check} ${event.what}: ${seconds(event.tookMs)}`;
}

/** What the live line says the suite is doing: the wait ending last, else the latest work. */
function activity(
  check: CheckName | undefined,
  working: string | undefined,
  waits: Map<string, { check: CheckName; untilMs: number }>,
  now: number,
): string | undefined {
  if (waits.size > 0) {
    const [what, wait] = [...waits].reduce((latest, entry) => (entry[1].untilMs > latest[1].untilMs ? entry : latest));
    const others = waits.size > 1 ? ` (+${waits.size - 1} more)` : '';
    return `${wait.check}: waiting for ${what}${others}, at most ${seconds(wait.untilMs - now)} left`;
  }
  return check && working ? `${check}: ${working}` : undefined;
}

export function createProgress(
  stream: ProgressStream,
  now: () => number = () => performance.now(),
  options: ProgressOptions = {},
): Progress {
  if (!stream.isTTY) {
    const verbose = options.verbose === true;
    return {
      onResult: (result) => void (verbose && stream.write(`${resultLine(result)}\n`)),
      onProgress: (event) => {
        if (verbose && event.kind === 'waited') stream.write(`${waitedLine(event)}\n`);
      },
      finish: () => undefined,
    };
  }
  const started = now();
  const subjects = new Set<string>();
  const waits = new Map<string, { check: CheckName; untilMs: number }>();
  let done = 0;
  let failed = 0;
  let last: CheckResult | undefined;
  let check: CheckName | undefined;
  let working: string | undefined;
  let shown = false;
  let ticker: NodeJS.Timeout | undefined;

  const render = (): void => {
    const at = now();
    const doing = activity(check, working, waits, at) ?? (last ? `last: ${last.check} ${last.subject}` : 'starting');
    const text = `${done} checks done on ${subjects.size} operations, ${failed} failed so far, ${seconds(at - started)}; ${doing}`;
    const width = Math.max(20, (stream.columns ?? 100) - 1);
    // \r + "erase line" keeps one line however long the previous one was.
    stream.write(`\r\u001b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    shown = true;
  };
  // While something is awaited the line counts down by itself; the timer never keeps the process alive.
  const tick = (): void => {
    if (waits.size > 0 && !ticker) {
      ticker = setInterval(render, REFRESH_MS);
      ticker.unref();
    } else if (waits.size === 0 && ticker) {
      clearInterval(ticker);
      ticker = undefined;
    }
  };

  return {
    onResult: (result) => {
      done++;
      subjects.add(result.subject);
      if (result.outcome === 'failed') failed++;
      last = result;
      if (result.check !== check) working = undefined;
      render();
    },
    onProgress: (event) => {
      check = event.check;
      if (event.kind === 'working') working = event.what;
      else if (event.kind === 'waiting') waits.set(event.what, { check: event.check, untilMs: event.untilMs });
      else waits.delete(event.what);
      tick();
      render();
    },
    finish: () => {
      waits.clear();
      tick();
      if (shown) stream.write('\r\u001b[2K');
    },
  };
}
