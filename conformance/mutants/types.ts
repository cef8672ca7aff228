// A mutant is the sandbox with one realistic implementer's mistake in it, written as text edits of its
// source. The catalogue proves the suite's verdict: run against every mutant, the full profile must fail.
import type { CheckName } from '../types.js';

export interface SourceEdit {
  /** Path under sandbox/, e.g. `disbursements/index.ts`. */
  file: string;
  /** Exact text that must occur exactly once in the file (a mutant whose text is gone is stale, and says so). */
  find: string;
  replace: string;
}

export interface Mutant {
  /** kebab-case, unique in the catalogue. */
  name: string;
  /** The check meant to catch it: the fast subset runs only that check against the mutant. */
  family: CheckName;
  /** The mistake in one sentence, as an implementer would make it. */
  mistake: string;
  edits: SourceEdit[];
}
