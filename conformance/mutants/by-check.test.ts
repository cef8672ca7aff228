// The kill-rate report: per check the mutants it catches alone, per class of fault the checks that carry
// it, and the mutants only the second round's checks catch. Built from rows as the runner records them.
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES, PROFILE_CHECKS, type CheckName } from '../types.js';
import { checksAlone, formatMatrix, matrixOf, newChecks, rowLine, soloRuns, type MutantRow } from './by-check.js';
import type { Mutant } from './types.js';

// Two checks standing for the old ones and one for the new (the report takes its lists as given).
const OLD_A = 'transitions' as CheckName;
const OLD_B = 'money' as CheckName;
const NEW = 'forbidden_transitions' as CheckName;
const checks = [OLD_A, OLD_B, NEW];

const row = (name: string, caughtBy: CheckName[], extra: Partial<MutantRow> = {}): MutantRow => ({
  name,
  ran: checks,
  caughtBy,
  ...extra,
});
const rows: MutantRow[] = [
  row('final-state-revived', [NEW], { class: 'forbidden-transitions' }),
  row('wrong-target-state', [OLD_A, NEW], { class: 'forbidden-transitions' }),
  row('refund-forgotten', [OLD_B], { class: 'money' }),
  row('header-misread', []),
  { name: 'stale-one', ran: [], caughtBy: [], error: 'stale-one: sandbox/x.ts has no declaration gone' },
];

describe('matrixOf', () => {
  const matrix = matrixOf(rows, checks, [NEW]);

  it('counts per check the mutants it caught alone, of those it ran against (a mutant not run counts nowhere)', () => {
    expect(matrix.perCheck).toEqual([
      { check: OLD_A, caught: 1, of: 4 },
      { check: OLD_B, caught: 1, of: 4 },
      { check: NEW, caught: 2, of: 4 },
    ]);
  });

  it('says per class which checks catch how many of its mutants, the unclassed last', () => {
    expect(matrix.perClass).toEqual([
      { class: 'forbidden-transitions', mutants: 2, caughtBy: { [OLD_A]: 1, [NEW]: 2 } },
      { class: 'money', mutants: 1, caughtBy: { [OLD_B]: 1 } },
      { class: 'none', mutants: 1, caughtBy: {} },
    ]);
  });

  it('lists the mutants only new checks catch, those no check catches alone, and those that could not run', () => {
    expect(matrix.onlyNewChecks).toEqual(['final-state-revived']);
    expect(matrix.missedByEveryCheck).toEqual(['header-misread']);
    expect(matrix.errors).toEqual([{ name: 'stale-one', error: 'stale-one: sandbox/x.ts has no declaration gone' }]);
  });
});

describe('formatMatrix', () => {
  it('prints the kill rates, the classes, the new-only mutants, the misses and the errors', () => {
    expect(formatMatrix(matrixOf(rows, checks, [NEW]))).toBe(
      [
        'Kill rate per check, each check alone (4 mutants, 1 not run):',
        '  transitions                1/4   25%',
        '  money                      1/4   25%',
        '  forbidden_transitions      2/4   50%  (new)',
        '',
        'Checks that catch each class of fault (mutants caught / in the class):',
        '  forbidden-transitions (2): forbidden_transitions 2/2, transitions 1/2',
        '  money (1): money 1/1',
        '  none (1): no check',
        '',
        'Caught only by the new checks (forbidden_transitions): 1',
        '  final-state-revived: forbidden_transitions',
        '',
        'Missed by every check alone: header-misread',
        'Not run: stale-one: stale-one: sandbox/x.ts has no declaration gone',
        '',
      ].join('\n'),
    );
  });

  it('shows a check that ran against no mutant as "-", not as 0%', () => {
    const text = formatMatrix(matrixOf([row('only-old', [OLD_A], { ran: [OLD_A] })], checks, [NEW]));
    expect(text).toContain('  forbidden_transitions      0/0     -  (new)');
  });
});

describe('rowLine', () => {
  it('says which checks caught a mutant, or that none did alone, or why it did not run', () => {
    expect(rowLine(rows[1] as MutantRow)).toBe(
      'caught  wrong-target-state [forbidden-transitions]: by transitions, forbidden_transitions',
    );
    expect(rowLine(rows[3] as MutantRow)).toBe('MISSED  header-misread: by no check alone');
    expect(rowLine(rows[4] as MutantRow)).toBe('ERROR   stale-one: stale-one: sandbox/x.ts has no declaration gone');
  });
});

describe('the checks run alone', () => {
  it("are the full profile's, with the rate limit for its own mutants and the baseline", () => {
    const mutant = (family: CheckName): Mutant => ({
      name: 'm',
      family,
      mistake: 'a mistake of some kind',
      edits: [],
      caught: { result: `${family}:getBalance` },
    });
    expect(checksAlone(mutant('money'))).toEqual(PROFILE_CHECKS.full);
    expect(checksAlone(mutant('rate_limit'))).toEqual([...PROFILE_CHECKS.full, 'rate_limit']);
    expect(checksAlone(undefined)).toContain('rate_limit');
  });

  it('run a check that judges what others do with them, and every other check by itself', () => {
    const feeders: Partial<Record<CheckName, CheckName[]>> = {
      response_conformance: ['response_conformance', 'positive_data', 'negative_data'],
      callback_deliveries: ['response_conformance', 'positive_data', 'negative_data', 'money', 'callback_deliveries'],
    };
    const feedersOf = (check: CheckName): CheckName[] => feeders[check] ?? [check];
    // Check 1's feeders are judged from its run; the whole-run judge's run holds check 1, so only it is judged
    // there, and it comes first, on a target no other run has touched.
    expect(
      soloRuns(
        ['response_conformance', 'auth', 'positive_data', 'money', 'negative_data', 'callback_deliveries'],
        feedersOf,
      ),
    ).toEqual([
      {
        run: ['response_conformance', 'positive_data', 'money', 'negative_data', 'callback_deliveries'],
        judged: ['callback_deliveries'],
      },
      {
        run: ['response_conformance', 'positive_data', 'negative_data'],
        judged: ['response_conformance', 'positive_data', 'negative_data'],
      },
      { run: ['auth'], judged: ['auth'] },
      { run: ['money'], judged: ['money'] },
    ]);
    expect(soloRuns(['auth', 'positive_data'], feedersOf)).toEqual([
      { run: ['auth'], judged: ['auth'] },
      { run: ['positive_data'], judged: ['positive_data'] },
    ]);
  });

  it('count as new only the second round checks the suite has', () => {
    for (const check of newChecks()) expect(CHECK_NAMES).toContain(check);
    expect(newChecks()).not.toContain('transitions');
  });
});
