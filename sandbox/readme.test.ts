// The README lists the values that select each automatic failure; the control contract holds them
// (`x-test-modes`). The README's tables must say exactly what the contract says, in its order.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sandboxTestMode } from './contract.js';

const readme = readFileSync(new URL('./README.md', import.meta.url), 'utf8');
const listed = /<!-- automatic-outcomes:start[^>]*-->([\s\S]*?)<!-- automatic-outcomes:end -->/.exec(readme)?.[1] ?? '';

/** The tables' rows as [value, failure code], per table (one table per header row). */
function tables(markdown: string): [string, string][][] {
  const found: [string, string][][] = [];
  for (const line of markdown.split('\n')) {
    if (!line.startsWith('|')) continue;
    const [value = '', code = ''] = line
      .split('|')
      .slice(1, 3)
      .map((cell) => cell.trim().replaceAll('`', ''));
    if (line.includes('Ends `FAILED`')) found.push([]);
    else if (!value.startsWith('---')) found.at(-1)?.push([value, code]);
  }
  return found;
}

describe('sandbox/README.md', () => {
  it('lists every automatic failure value of the control contract, disbursements then direct debits', () => {
    const expected = ['createDisbursement', 'createDirectDebitPayment'].map((operationId) =>
      sandboxTestMode(operationId).outcomes.map((o): [string, string] => [String(o.value), String(o.failureCode)]),
    );
    expect(tables(listed)).toEqual(expected);
  });
});
