// The changelog's lines: one per change, and one per kind where a release makes many changes of one kind.
import { describe, expect, it } from 'vitest';
import type { ChangeGroup } from '../diff/format.js';
import type { Finding } from '../diff/types.js';
import { changeLines, LISTED_PER_KIND } from './changelog.js';

const group = (rule: string, change: string, severity: Finding['severity'] = 'breaking'): ChangeGroup => ({
  rule,
  change,
  severity,
  verdicts: [
    {
      rule,
      family: 'request-bodies',
      change,
      severity,
      party: 'client',
      impact: 'requests that were valid may now be refused',
    },
  ],
});

describe('changeLines', () => {
  it('lists each change while a kind has few', () => {
    const groups = Array.from({ length: LISTED_PER_KIND }, (_, i) =>
      group('request-max-length-set', `field ${i} gets a maxLength.`),
    );
    expect(changeLines(groups)).toEqual(groups.map((_, i) => `field ${i} gets a maxLength (breaking for clients).`));
  });

  it('says how many changes of one kind there are, with the first as the example, past a few', () => {
    const groups = Array.from({ length: LISTED_PER_KIND + 1 }, (_, i) =>
      group('request-max-length-set', `field ${i} gets a maxLength.`),
    );
    expect(changeLines([...groups, group('response-status-added', 'a 429 answer.', 'potentially-breaking')])).toEqual([
      `${LISTED_PER_KIND + 1} changes of one kind (\`request-max-length-set\`), such as: field 0 gets a maxLength (breaking for clients).`,
      'a 429 answer (potentially-breaking for clients).',
    ]);
  });

  it('keeps kinds with other verdicts apart', () => {
    const many = (severity: Finding['severity']): ChangeGroup[] =>
      Array.from({ length: LISTED_PER_KIND + 1 }, (_, i) =>
        group('response-pattern-set', `field ${i} gets a pattern.`, severity),
      );
    expect(changeLines([...many('breaking'), ...many('non-breaking')])).toHaveLength(2);
  });
});
