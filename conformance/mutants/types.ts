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
}
