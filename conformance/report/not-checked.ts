// What a run did not check and why, grouped: one reason usually stands for many subjects (no callback
// receiver for every webhook, no other merchant's key for every operation), and is said once.
import type { CheckName, CheckResult } from '../types.js';
import { notRunReasons } from '../verdict.js';

export interface NotChecked {
  check: CheckName;
  reason: string;
  subjects: string[];
}

export function notCheckedGroups(results: readonly CheckResult[]): NotChecked[] {
  const groups = new Map<string, NotChecked>();
  for (const result of results) {
    for (const reason of notRunReasons(result)) {
      const key = `${result.check}\u0000${reason}`;
      const group = groups.get(key) ?? { check: result.check, reason, subjects: [] };
      group.subjects.push(result.subject);
      groups.set(key, group);
    }
  }
  return [...groups.values()];
}

/** A group as one line: the check, its first subjects (and how many more), the reason. */
export function notCheckedLine({ check, reason, subjects }: NotChecked, shown = 3): string {
  const more = subjects.length > shown ? ` (+${subjects.length - shown} more)` : '';
  return `${check} ${subjects.slice(0, shown).join(', ')}${more}: ${reason}`;
}
