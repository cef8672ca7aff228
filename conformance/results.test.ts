// Merging the results of several scenarios on one subject: the subject fails if any failed, is skipped only
// if none ran, and every skipped scenario's reason is kept, whichever order the scenarios finished in.
import { describe, expect, it } from 'vitest';
import { mergeBySubject } from './results.js';
import type { CheckResult } from './types.js';

const result = (outcome: CheckResult['outcome'], extra: Partial<CheckResult> = {}): CheckResult => ({
  check: 'boundaries',
  subject: 'createCustomer',
  outcome,
  cases: 1,
  findings: [],
  ...extra,
});
const failure = { severity: 'failure' as const, message: 'expected status 200, got 400' };

describe('mergeBySubject', () => {
  it("keeps a skipped scenario's reason as a note when it finished before one that passed", () => {
    const [merged] = mergeBySubject([
      result('skipped', { skippedReason: 'every value tried was taken' }),
      result('passed'),
    ]);
    expect(merged).toMatchObject({ outcome: 'passed', cases: 2, notes: ['skipped: every value tried was taken'] });
    expect(merged?.skippedReason).toBeUndefined();
  });

  it('keeps it when it finished after one that passed', () => {
    const [merged] = mergeBySubject([
      result('passed', { notes: ['a note'] }),
      result('skipped', { skippedReason: 'no example' }),
    ]);
    expect(merged).toMatchObject({ outcome: 'passed', notes: ['a note', 'skipped: no example'] });
  });

  it('fails the subject when any scenario failed, with every finding', () => {
    const [merged] = mergeBySubject([
      result('passed'),
      result('failed', { findings: [failure] }),
      result('skipped', { skippedReason: 'x' }),
    ]);
    expect(merged).toMatchObject({ outcome: 'failed', cases: 3, findings: [failure] });
  });

  it('skips the subject only when none ran, giving the first reason and keeping the rest as notes', () => {
    const [merged] = mergeBySubject([
      result('skipped', { skippedReason: 'first' }),
      result('skipped', { skippedReason: 'second' }),
    ]);
    expect(merged).toMatchObject({ outcome: 'skipped', skippedReason: 'first', notes: ['skipped: second'] });
  });

  it('is not applicable only when every scenario was not applicable', () => {
    const [none] = mergeBySubject([
      result('skipped', { skippedReason: 'no rule', notApplicable: true }),
      result('skipped', { skippedReason: 'no example', notApplicable: true }),
    ]);
    expect(none).toMatchObject({ outcome: 'skipped', skippedReason: 'no rule', notApplicable: true });
  });

  it('gives a subject none of whose scenarios ran the reason one could not run, so that the run counts it as not run', () => {
    const [merged] = mergeBySubject([
      result('skipped', { skippedReason: 'no rule', notApplicable: true }),
      result('skipped', { skippedReason: 'no clock to move' }),
    ]);
    expect(merged).toMatchObject({
      outcome: 'skipped',
      skippedReason: 'no clock to move',
      notes: ['skipped: no rule'],
    });
    expect(merged?.notApplicable).toBeUndefined();
  });

  it('keeps what each scenario left unchecked, once', () => {
    const [merged] = mergeBySubject([
      result('passed', { unchecked: ['across modes'] }),
      result('passed', { unchecked: ['across modes'] }),
    ]);
    expect(merged).toMatchObject({ outcome: 'passed', unchecked: ['across modes'] });
  });

  it('keeps subjects apart, in the order they first appear', () => {
    const merged = mergeBySubject([
      result('passed', { subject: 'b' }),
      result('failed', { subject: 'a' }),
      result('passed', { subject: 'b' }),
    ]);
    expect(merged.map((r) => [r.subject, r.outcome, r.cases])).toEqual([
      ['b', 'passed', 2],
      ['a', 'failed', 1],
    ]);
  });
});
