import { describe, expect, it } from 'vitest';
import { FIXTURE_RESULTS } from './fixture.js';
import { createProgress, resultLine, waitedLine } from './terminal.js';

function capture(isTTY: boolean): {
  stream: { write: (text: string) => void; isTTY: boolean; columns: number };
  text: () => string;
} {
  let text = '';
  return { stream: { write: (chunk) => void (text += chunk), isTTY, columns: 60 }, text: () => text };
}

describe('live progress', () => {
  it('writes nothing when not on a terminal (CI): the summary says it all', () => {
    const { stream, text } = capture(false);
    const progress = createProgress(stream);
    FIXTURE_RESULTS.forEach(progress.onResult);
    progress.onProgress({
      kind: 'waited',
      check: 'callbacks',
      what: 'ewalletPayment for createEwalletPayment',
      tookMs: 1,
    });
    progress.finish();
    expect(text()).toBe('');
  });

  it('writes one plain line per result when not on a terminal, with verbose', () => {
    const { stream, text } = capture(false);
    const progress = createProgress(stream, undefined, { verbose: true });
    FIXTURE_RESULTS.forEach(progress.onResult);
    progress.finish();
    expect(text().split('\n').slice(0, -1)).toEqual(FIXTURE_RESULTS.map(resultLine));
    expect(text()).toContain('FAIL positive_data createCustomer: 1 failure(s), first: body does not match');
    expect(text()).toContain('SKIP auth getBalance: the target cannot tell keys apart');
    expect(text()).toContain(
      'SKIP negative_data getBalance: not applicable: the operation declares no request rule that can be broken',
    );
  });

  it('rewrites a single line on a terminal, counting failures so far, and clears it at the end', () => {
    const { stream, text } = capture(true);
    let clock = 0;
    const progress = createProgress(stream, () => clock);
    for (const result of FIXTURE_RESULTS) {
      clock += 500;
      progress.onResult(result);
    }
    const frames = text()
      .split('\r\u001b[2K')
      .filter((frame) => frame !== '');
    expect(frames).toHaveLength(FIXTURE_RESULTS.length);
    expect(frames.at(-1)).toMatch(/^6 checks done on 2 operations, 2 failed so far, 3\.0 s/);
    expect(frames.every((frame) => frame.length <= 59 && !frame.includes('\n'))).toBe(true);
    progress.finish();
    expect(text().endsWith('\r\u001b[2K')).toBe(true);
  });

  it('writes one line per finished wait in CI with verbose, and nothing for work or waits under way', () => {
    const { stream, text } = capture(false);
    const progress = createProgress(stream, undefined, { verbose: true });
    progress.onProgress({ kind: 'working', check: 'callbacks', what: 'running' });
    progress.onProgress({
      kind: 'waiting',
      check: 'callbacks',
      what: 'ewalletPayment for createEwalletPayment',
      untilMs: 15_000,
    });
    progress.onProgress({
      kind: 'waited',
      check: 'callbacks',
      what: 'ewalletPayment for createEwalletPayment',
      tookMs: 1_234,
    });
    progress.finish();
    expect(text()).toBe('WAIT callbacks ewalletPayment for createEwalletPayment: 1.2 s\n');
    expect(waitedLine({ kind: 'waited', check: 'callbacks', what: 'x', tookMs: 50 })).toBe('WAIT callbacks x: 0.1 s');
  });

  it('names the check at work and the callback awaited on a terminal, with how long the wait may still last', () => {
    const { stream, text } = capture(true);
    let clock = 0;
    const progress = createProgress({ ...stream, columns: 200 }, () => clock);
    progress.onProgress({ kind: 'working', check: 'callbacks', what: 'running' });
    expect(text().split('\r\u001b[2K').at(-1)).toBe(
      '0 checks done on 0 operations, 0 failed so far, 0.0 s; callbacks: running',
    );
    clock = 1_000;
    progress.onProgress({
      kind: 'waiting',
      check: 'callbacks',
      what: 'disbursementFinished for failDisbursement',
      untilMs: 16_000,
    });
    progress.onProgress({
      kind: 'waiting',
      check: 'callbacks',
      what: 'ewalletPayment for createEwalletPayment',
      untilMs: 6_000,
    });
    expect(text().split('\r\u001b[2K').at(-1)).toBe(
      '0 checks done on 0 operations, 0 failed so far, 1.0 s; callbacks: waiting for disbursementFinished for failDisbursement (+1 more), at most 15.0 s left',
    );
    clock = 2_000;
    progress.onProgress({
      kind: 'waited',
      check: 'callbacks',
      what: 'disbursementFinished for failDisbursement',
      tookMs: 1_000,
    });
    expect(text().split('\r\u001b[2K').at(-1)).toBe(
      '0 checks done on 0 operations, 0 failed so far, 2.0 s; callbacks: waiting for ewalletPayment for createEwalletPayment, at most 4.0 s left',
    );
    progress.onProgress({
      kind: 'waited',
      check: 'callbacks',
      what: 'ewalletPayment for createEwalletPayment',
      tookMs: 1_000,
    });
    expect(text().split('\r\u001b[2K').at(-1)).toBe(
      '0 checks done on 0 operations, 0 failed so far, 2.0 s; callbacks: running',
    );
    progress.finish();
    expect(text().endsWith('\r\u001b[2K')).toBe(true);
  });
});
