import { describe, expect, it } from 'vitest';
import { linkedDecisionIds } from './decisions.js';

describe('linkedDecisionIds', () => {
  it('finds links in descriptions only, not in x-decisions, each once in order of first appearance', () => {
    const doc = {
      info: { description: 'Lists are whole ([decision](#/decisions/no-pagination)).' },
      paths: {
        '/a': {
          get: {
            summary: 'Not a description ([decision](#/decisions/in-summary)).',
            description: 'Shared rule ([decision](#/decisions/elsewhere-rule)), ([again](#/decisions/no-pagination)).',
          },
        },
      },
      'x-decisions': [{ id: 'x', decision: '[decision](#/decisions/x)', description: '[d](#/decisions/y)' }],
    };
    expect(linkedDecisionIds(doc)).toEqual(['no-pagination', 'elsewhere-rule']);
  });
});
