// The catalogue's kill rate per check (`npm run conformance:mutants -- --by-check`): each mutant is started
// once and every check of the full profile is run alone against it, so the report says which checks carry
// which classes of fault, and which mutants only the checks added in the second round catch. The runs are in
// by-check-run.ts; this module is the report, a pure function of their rows.
import { CHECK_NAMES, PROFILE_CHECKS, type CheckName } from '../types.js';
import type { Mutant, MutantClass } from './types.js';

/** The checks added in the second round (issue 23); the others are the old ones. The one list of them. */
const SECOND_ROUND: readonly string[] = [
  'forbidden_transitions',
  'timestamps',
  'lookups',
  'balance_rules',
  'callback_deliveries',
  'idempotency_scope',
];

/** Of the suite's checks, the second round's. */
export function newChecks(): CheckName[] {
  return CHECK_NAMES.filter((check) => SECOND_ROUND.includes(check));
}

/** What each check alone did against one mutant (none: the unmutated sandbox). */
export interface MutantRow {
  name: string;
  family?: CheckName;
  class?: MutantClass;
  /** The checks run alone against it. */
  ran: CheckName[];
  /** Those of them that failed it. */
  caughtBy: CheckName[];
  /** Set when the mutant could not be started (stale text, a copy that does not start). */
  error?: string;
}

/** The checks run alone against a mutant: the full profile's, and the rate limit for its own mutants (as the full run does). */
export function checksAlone(mutant: Mutant | undefined): CheckName[] {
  return [
    ...PROFILE_CHECKS.full,
    ...(mutant === undefined || mutant.family === 'rate_limit' ? (['rate_limit'] as const) : []),
  ];
}

/** One run against a mutant, and the checks whose verdict alone it gives. */
export interface SoloRun {
  run: CheckName[];
  judged: CheckName[];
}

/**
 * The runs that give each check's verdict alone. A check that judges what others do (check 1 the answers
 * they get, callback_deliveries the deliveries they cause: `feedersOf` names more than itself) runs with
 * them; the feeders' own verdicts are taken from that run too when it holds no other such judge (check 1
 * sends nothing, and a run takes its checks one after another, as these runs are taken against one
 * target), else they are not the feeders alone. Every other check runs by itself, after them.
 */
export function soloRuns(checks: CheckName[], feedersOf: (check: CheckName) => CheckName[]): SoloRun[] {
  const judges = checks.filter((check) => feedersOf(check).some((other) => other !== check));
  const judged = new Set<CheckName>(judges);
  const groups = judges.map((judge) => {
    const run = checks.filter((check) => check === judge || feedersOf(judge).includes(check));
    const feeders = run.some((check) => check !== judge && judges.includes(check))
      ? []
      : run.filter((check) => !judged.has(check));
    for (const feeder of feeders) judged.add(feeder);
    return { run, judged: [judge, ...feeders] };
  });
  // The largest run first: a judge of every delivery the target made must meet a target no earlier run touched.
  const largestFirst = [...groups].sort((a, b) => b.run.length - a.run.length);
  return [
    ...largestFirst,
    ...checks.filter((check) => !judged.has(check)).map((check) => ({ run: [check], judged: [check] })),
  ];
}

export interface ByCheckMatrix {
  checks: CheckName[];
  newChecks: CheckName[];
  mutants: MutantRow[];
  /** Per check: the mutants it caught alone, of those it ran against. */
  perCheck: { check: CheckName; caught: number; of: number }[];
  /** Per class of fault (`none` for a mutant without one): its mutants, and how many of them each check caught. */
  perClass: { class: MutantClass | 'none'; mutants: number; caughtBy: Partial<Record<CheckName, number>> }[];
  /** Mutants some check caught, every one of them a second-round check. */
  onlyNewChecks: string[];
  /** Mutants that ran and that no check caught alone. */
  missedByEveryCheck: string[];
  /** Mutants that could not be run, with the reason. */
  errors: { name: string; error: string }[];
}

export function matrixOf(rows: MutantRow[], checks: CheckName[], fresh: CheckName[]): ByCheckMatrix {
  const ran = rows.filter((row) => row.error === undefined);
  const classes = [...new Set(rows.map((row) => row.class ?? 'none'))].sort((a, b) =>
    a === 'none' ? 1 : b === 'none' ? -1 : a.localeCompare(b),
  );
  return {
    checks,
    newChecks: fresh,
    mutants: rows,
    perCheck: checks.map((check) => ({
      check,
      caught: ran.filter((row) => row.caughtBy.includes(check)).length,
      of: ran.filter((row) => row.ran.includes(check)).length,
    })),
    perClass: classes.map((name) => {
      const members = ran.filter((row) => (row.class ?? 'none') === name);
      const caughtBy = Object.fromEntries(
        checks
          .map((check) => [check, members.filter((row) => row.caughtBy.includes(check)).length] as const)
          .filter(([, count]) => count > 0),
      );
      return { class: name, mutants: members.length, caughtBy };
    }),
    onlyNewChecks: ran
      .filter((row) => row.caughtBy.length > 0 && row.caughtBy.every((check) => fresh.includes(check)))
      .map((row) => row.name),
    missedByEveryCheck: ran.filter((row) => row.caughtBy.length === 0).map((row) => row.name),
    errors: rows.flatMap((row) => (row.error === undefined ? [] : [{ name: row.name, error: row.error }])),
  };
}

const percent = (caught: number, of: number): string => (of === 0 ? '-' : `${Math.round((100 * caught) / of)}%`);

/** One line per mutant as it finishes. */
export function rowLine(row: MutantRow): string {
  if (row.error !== undefined) return `ERROR   ${row.name}: ${row.error}`;
  return `${row.caughtBy.length > 0 ? 'caught ' : 'MISSED '} ${row.name}${row.class ? ` [${row.class}]` : ''}: ${row.caughtBy.length > 0 ? `by ${row.caughtBy.join(', ')}` : 'by no check alone'}`;
}

/** The matrix as a person reads it: kill rate per check, checks per class, what only the new checks catch. */
export function formatMatrix(matrix: ByCheckMatrix): string {
  const width = Math.max(...matrix.checks.map((check) => check.length)) + 2;
  const ran = matrix.mutants.length - matrix.errors.length;
  const lines = [
    `Kill rate per check, each check alone (${ran} mutants${matrix.errors.length > 0 ? `, ${matrix.errors.length} not run` : ''}):`,
  ];
  for (const { check, caught, of } of matrix.perCheck) {
    lines.push(
      `  ${check.padEnd(width)}${`${caught}/${of}`.padStart(7)}  ${percent(caught, of).padStart(4)}${matrix.newChecks.includes(check) ? '  (new)' : ''}`,
    );
  }
  lines.push('', 'Checks that catch each class of fault (mutants caught / in the class):');
  for (const { class: name, mutants, caughtBy } of matrix.perClass) {
    const carriers = Object.entries(caughtBy)
      .sort(([, a], [, b]) => b - a)
      .map(([check, count]) => `${check} ${count}/${mutants}`);
    lines.push(`  ${name} (${mutants}): ${carriers.length > 0 ? carriers.join(', ') : 'no check'}`);
  }
  lines.push(
    '',
    `Caught only by the new checks (${matrix.newChecks.join(', ') || 'none yet'}): ${matrix.onlyNewChecks.length}`,
  );
  for (const name of matrix.onlyNewChecks)
    lines.push(`  ${name}: ${matrix.mutants.find((row) => row.name === name)?.caughtBy.join(', ') ?? ''}`);
  if (matrix.missedByEveryCheck.length > 0)
    lines.push('', `Missed by every check alone: ${matrix.missedByEveryCheck.join(', ')}`);
  for (const { name, error } of matrix.errors) lines.push(`Not run: ${name}: ${error}`);
  return `${lines.join('\n')}\n`;
}
