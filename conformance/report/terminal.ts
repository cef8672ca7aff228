// Live progress while a run goes on. On a terminal: one line, rewritten in place, with the results and
// subjects done and the failures so far. Elsewhere (CI logs): one plain line per result, since a rewritten
// line would only pile up carriage returns in the log.
import type { CheckResult } from '../types.js';

export interface ProgressStream {
  write: (text: string) => unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Progress {
  onResult: (result: CheckResult) => void;
  /** Clears the live line (terminal) so the summary starts on a clean line. */
  finish: () => void;
}

const LABEL = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP' } as const;

/** The plain line for one result (the non-terminal form, also used in tests). */
export function resultLine(result: CheckResult): string {
  const detail =
    result.outcome === 'failed'
      ? `: ${result.findings.filter((f) => f.severity === 'failure').length} failure(s), first: ${result.findings.find((f) => f.severity === 'failure')?.message ?? ''}`
      : result.outcome === 'skipped'
        ? `: ${result.skippedReason ?? 'no reason given'}`
        : ` (${result.cases} case${result.cases === 1 ? '' : 's'})`;
  return `${LABEL[result.outcome]} ${result.check} ${result.subject}${detail}`;
}

export function createProgress(stream: ProgressStream, now: () => number = () => performance.now()): Progress {
  const started = now();
  const subjects = new Set<string>();
  let done = 0;
  let failed = 0;
  let shown = false;
  if (!stream.isTTY) {
    return { onResult: (result) => void stream.write(`${resultLine(result)}\n`), finish: () => undefined };
  }
  return {
    onResult: (result) => {
      done++;
      subjects.add(result.subject);
      if (result.outcome === 'failed') failed++;
      const seconds = ((now() - started) / 1000).toFixed(1);
      const text = `${done} checks done on ${subjects.size} operations, ${failed} failed so far, ${seconds} s; last: ${result.check} ${result.subject}`;
      const width = Math.max(20, (stream.columns ?? 100) - 1);
      // \r + "erase line" keeps one line however long the previous one was.
      stream.write(`\r\u001b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
      shown = true;
    },
    finish: () => {
      if (shown) stream.write('\r\u001b[2K');
    },
  };
}
