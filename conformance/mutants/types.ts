// A mutant is the sandbox with one realistic implementer's mistake in it, written as text edits of its
// source. The catalogue proves the suite's verdict: run against every mutant, the full profile must fail.
import type { CheckName } from '../types.js';

export interface SourceEdit {
  /** Path under sandbox/, e.g. `disbursements/index.ts`. */
  file: string;
  /**
   * The named declaration the edit is inside (a function, a method `Class.method`, a variable): the text is
   * looked for there only, so the same text elsewhere in the file, or code moved around it, does not matter.
   */
  within?: string;
  /** Text that must occur exactly once (in `within`, else in the file); a mutant whose text is gone is stale, and says so. */
  find: string;
  replace: string;
}

/**
 * Where the catalogue must see a mutant caught: not only somewhere in the run, but on the result its mistake
 * belongs to, saying what it is. A mutant caught elsewhere only is reported as caught in the wrong place.
 */
export interface CaughtWhere {
  /** `check:subject` of a result that must fail (the operation, webhook or workflow the mistake is in). */
  result: string;
  /** What failure findings of that result must say: each pattern matched by one of them. */
  says?: RegExp[];
  /** The reproducing command of the finding that says the first pattern. */
  shownBy?: RegExp;
  /** Every failure finding of the result carries a command that reproduces it (`curl …`). */
  reproduced?: true;
  /** No other result of the run fails. */
  alone?: true;
}

export const MUTANT_CLASSES = [
  'forbidden-transitions',
  'time',
  'money',
  'callbacks',
  'idempotency',
  'lookups',
  'concurrency',
  'prose-rules',
] as const;
export type MutantClass = (typeof MUTANT_CLASSES)[number];

export interface Mutant {
  /** kebab-case, unique in the catalogue. */
  name: string;
  /** The check meant to catch it: the fast subset runs only that check against the mutant. */
  family: CheckName;
  /**
   * The class of fault it stands for (issue: the classes the suite must catch), for the kill-rate report:
   * what a state machine forbids, time, money, callbacks, idempotency, lookups, concurrency, prose rules.
   */
  class?: MutantClass;
  /** The mistake in one sentence, as an implementer would make it. */
  mistake: string;
  edits: SourceEdit[];
  caught: CaughtWhere;
  /**
   * The checks it is judged by, when its family's default set (runner.ts, familyPatterns) is wider than what
   * brings the mistake out: its family, with the checks whose requests cause what that family judges (the
   * deliveries of a callback_deliveries mutant come from a few checks, not the whole profile).
   */
  judgedBy?: CheckName[];
}
