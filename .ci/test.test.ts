// The `npm test` orchestrator: stages in order, the parts of a stage side by side, the first failure stops
// the run with its exit code, and the report gives every part's status and time.
import { describe, expect, it } from 'vitest';
import { exitCode, type Part, type PartOutcome, report, runStages, type Runner } from './test.js';

/** A runner whose parts end with the given codes, in the order given by their delays; it records what ran. */
function fakeRunner(codes: Record<string, { code: number; afterMs: number }>) {
  const started: string[] = [];
  const stopped: string[] = [];
  const runner: Runner = {
    start(part) {
      started.push(part.name);
      const { code, afterMs } = codes[part.name] ?? { code: 0, afterMs: 0 };
      let stop = (): void => undefined;
      const done = new Promise<number>((settle) => {
        const timer = setTimeout(() => settle(code), afterMs);
        stop = () => {
          stopped.push(part.name);
          clearTimeout(timer);
          settle(143);
        };
      });
      return { done, stop: () => stop() };
    },
  };
  return { runner, started, stopped };
}

const part = (name: string): Part => ({ name, script: name });
const stages = [[part('lint'), part('typecheck')], [part('unit')], [part('mutants')]];

describe('runStages', () => {
  it('runs every part when all pass, and the run passes', async () => {
    const { runner, started } = fakeRunner({});
    const outcomes = await runStages(stages, runner);
    expect(started).toEqual(['lint', 'typecheck', 'unit', 'mutants']);
    expect(outcomes.map((o) => [o.name, o.code])).toEqual([
      ['lint', 0],
      ['typecheck', 0],
      ['unit', 0],
      ['mutants', 0],
    ]);
    expect(exitCode(outcomes)).toBe(0);
  });

  it('stops at the first failing part: its stage siblings are stopped, later stages not run, its code is the exit code', async () => {
    const { runner, started, stopped } = fakeRunner({
      lint: { code: 3, afterMs: 1 },
      typecheck: { code: 0, afterMs: 1_000 },
    });
    const outcomes = await runStages(stages, runner);
    expect(started).toEqual(['lint', 'typecheck']);
    expect(stopped).toEqual(['typecheck']);
    expect(outcomes.map((o) => [o.name, o.code, o.stopped])).toEqual([
      ['lint', 3, undefined],
      ['typecheck', 143, true],
      ['unit', undefined, undefined],
      ['mutants', undefined, undefined],
    ]);
    expect(exitCode(outcomes)).toBe(3);
  });
});

describe('report', () => {
  it('prints one line per part with its status and wall time, and the total', () => {
    const outcomes: PartOutcome[] = [
      { name: 'lint', code: 0, wallMs: 20_000 },
      { name: 'typecheck', code: 143, stopped: true, wallMs: 21_000 },
      { name: 'unit', code: 1, wallMs: 300_500 },
      { name: 'reliability' },
    ];
    expect(report(outcomes, 321_540)).toBe(
      [
        'npm test: time of each part',
        '  lint         passed              20.0 s',
        '  typecheck    stopped             21.0 s',
        '  unit         FAILED (exit 1)    300.5 s',
        '  reliability  not run',
        '  total        FAILED             321.5 s',
      ].join('\n'),
    );
  });
});
