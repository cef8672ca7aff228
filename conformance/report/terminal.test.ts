import { describe, expect, it } from 'vitest';
import { FIXTURE_RESULTS } from './fixture.js';
import { createProgress, resultLine } from './terminal.js';

function capture(isTTY: boolean): { stream: { write: (text: string) => void; isTTY: boolean; columns: number }; text: () => string } {
  let text = '';
  return { stream: { write: (chunk) => void (text += chunk), isTTY, columns: 60 }, text: () => text };
}

describe('live progress', () => {
  it('writes one plain line per result when not on a terminal (CI)', () => {
    const { stream, text } = capture(false);
    const progress = createProgress(stream);
    FIXTURE_RESULTS.forEach(progress.onResult);
    progress.finish();
    expect(text().split('\n').slice(0, -1)).toEqual(FIXTURE_RESULTS.map(resultLine));
    expect(text()).toContain('FAIL positive_data createCustomer: 1 failure(s), first: body does not match');
    expect(text()).toContain('SKIP auth getBalance: the target cannot tell keys apart');
  });

  it('rewrites a single line on a terminal, counting failures so far, and clears it at the end', () => {
    const { stream, text } = capture(true);
    let clock = 0;
    const progress = createProgress(stream, () => clock);
    for (const result of FIXTURE_RESULTS) {
      clock += 500;
      progress.onResult(result);
    }
    const frames = text().split('\r\u001b[2K').filter((frame) => frame !== '');
    expect(frames).toHaveLength(FIXTURE_RESULTS.length);
    expect(frames.at(-1)).toMatch(/^5 checks done on 2 operations, 2 failed so far, 2\.5 s/);
    expect(frames.every((frame) => frame.length <= 59 && !frame.includes('\n'))).toBe(true);
    progress.finish();
    expect(text().endsWith('\r\u001b[2K')).toBe(true);
  });
});
