import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { UniqueValues } from './data.js';
import { objectMarkers } from './forbidden-effects.js';

const unique = new UniqueValues(loadContract());

describe('the strings that name an object in a callback', () => {
  it('are its id and the identifiers the run made unique', () => {
    const externalId = unique.next({ type: 'string' }, 'fpc-1');
    expect(objectMarkers('6b0a591e4ee87dae7489d3ba', [externalId], unique)).toEqual([
      '6b0a591e4ee87dae7489d3ba',
      externalId,
    ]);
  });

  // Every code at the outlet carries its name, so another case's paid code would count as this action's callback.
  it('leave out an identifier other objects share: an outlet name, a value the run did not make', () => {
    const outlet = unique.next({ type: 'string', enum: ['ALFAMART', 'INDOMARET'] }, 'ALFAMART');
    expect(objectMarkers('6b0a591e4ee87dae7489d3ba', [outlet, '88880001', undefined], unique)).toEqual([
      '6b0a591e4ee87dae7489d3ba',
    ]);
  });

  it('leave out an id too short to tell apart from other values', () => {
    expect(objectMarkers('42', [], unique)).toEqual([]);
  });
});
