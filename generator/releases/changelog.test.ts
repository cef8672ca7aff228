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

  it('gives the first change of a kind past a few and says how many more there are, in words', () => {
    const groups = Array.from({ length: LISTED_PER_KIND + 1 }, (_, i) =>
      group('request-max-length-set', `field ${i} gets a maxLength.`),
    );
    expect(changeLines([...groups, group('response-status-added', 'a 429 answer.', 'potentially-breaking')])).toEqual([
      `field 0 gets a maxLength, and ${LISTED_PER_KIND} more changes like it (breaking for clients).`,
      'a 429 answer (potentially-breaking for clients).',
    ]);
  });

  it('writes large counts as a person reads them', () => {
    const groups = Array.from({ length: 1001 }, (_, i) =>
      group('response-max-length-set', `field ${i} gets a maxLength.`),
    );
    expect(changeLines(groups)).toEqual([
      'field 0 gets a maxLength, and 1,000 more changes like it (breaking for clients).',
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
