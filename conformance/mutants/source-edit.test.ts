// A mutant's edit is anchored to the declaration it is inside and survives reformatting and changes
// elsewhere in the file; once its declaration or its text is gone, or its text is ambiguous, it is stale
// and says so, instead of running an unmutated sandbox.
import { describe, expect, it } from 'vitest';
import { applyEdit, compact, StaleMutantError } from './source-edit.js';
import type { SourceEdit } from './types.js';

const SOURCE = `const limit = 10;

export function refund(balance: number, amount: number): number {
  if (amount > limit) return balance;
  return balance + amount;
}

export class Ledger {
  credit(amount: number): number {
    return this.total + amount;
  }
  debit(amount: number): number {
    return this.total - amount;
  }
  total = 0;
}

export function handlers(ctx: { limit: number }) {
  return {
    createThing: async (body: { amount: number }) => {
      if (body.amount > ctx.limit) return { status: 400, body: { error_code: 'TOO_MUCH', message: 'Too  much.' } };
      return { status: 200, body };
    },
    readThing: async (id: string) => ({ status: 200, body: { id } }),
  };
}
`;

/** The same declarations laid out by another formatter: other line breaks, indentation, spaces and trailing commas. */
const REFORMATTED = `const   limit=10;
export function refund(
    balance: number,
    amount: number,
): number {
    if (amount>limit)
        return balance;
    return balance+amount;
}
export class Ledger { credit(amount: number): number { return this.total + amount; }
  debit(amount: number): number { return this.total - amount; } total = 0; }
export function handlers(ctx: { limit: number }) {
    return {
        createThing: async (body: { amount: number }) => {
            if (body.amount > ctx.limit)
                return {
                    status: 400,
                    body: { error_code: 'TOO_MUCH', message: 'Too  much.' },
                };
            return { status: 200, body };
        },
        readThing: async (id: string) => ({ status: 200, body: { id } }),
    };
}
`;

const edit = (within: string | undefined, find: string, replace: string): SourceEdit => ({
  file: 'things.ts',
  ...(within === undefined ? {} : { within }),
  find,
  replace,
});

describe('applyEdit', () => {
  it('replaces the text inside the named function', () => {
    expect(applyEdit(SOURCE, edit('refund', 'return balance + amount;', 'return balance;'), 'm')).toContain(
      '  if (amount > limit) return balance;\n  return balance;\n}',
    );
  });

  it('still finds the text in a reformatted function, and replaces exactly its span', () => {
    const edited = applyEdit(
      REFORMATTED,
      edit('refund', 'if (amount > limit) return balance;', 'if (amount > limit * 2) return balance;'),
      'm',
    );
    expect(edited).toContain('    if (amount > limit * 2) return balance;\n    return balance+amount;');
    expect(edited.replace('if (amount > limit * 2) return balance;', '')).toBe(
      REFORMATTED.replace('if (amount>limit)\n        return balance;', ''),
    );
  });

  it('finds a method as Class.method, and a handler inside the function that returns it', () => {
    expect(applyEdit(REFORMATTED, edit('Ledger.debit', 'this.total - amount', 'this.total + amount'), 'm')).toContain(
      'debit(amount: number): number { return this.total + amount; }',
    );
    const handler = edit(
      'handlers.createThing',
      "if (body.amount > ctx.limit) return { status: 400, body: { error_code: 'TOO_MUCH', message: 'Too  much.' } };",
      '',
    );
    expect(applyEdit(SOURCE, handler, 'm')).not.toContain('TOO_MUCH');
    expect(applyEdit(REFORMATTED, handler, 'm')).not.toContain('TOO_MUCH');
  });

  it('looks for the text only inside the declaration: the same text elsewhere, or a variable renamed elsewhere, does not matter', () => {
    // `return { status: 200, body` occurs in both handlers; inside readThing it is one.
    expect(
      applyEdit(SOURCE, edit('handlers.readThing', 'body: { id }', 'body: { id: id.toUpperCase() }'), 'm'),
    ).toContain('({ status: 200, body: { id: id.toUpperCase() } })');
    const renamedElsewhere = SOURCE.replaceAll('limit', 'ceiling');
    expect(
      applyEdit(renamedElsewhere, edit('Ledger.credit', 'return this.total + amount;', 'return this.total;'), 'm'),
    ).toContain('return this.total;');
  });

  it('matches a list element with or without the comma a formatter puts after it, and replaces the comma too', () => {
    const spread = 'export const all = [\n  { name: 1 },\n  { name: 2 },\n];\n';
    const packed = 'export const all = [{ name: 1 }, { name: 2 }];\n';
    const element = edit('all', '{ name: 2 },', '{ name: 3 },');
    expect(applyEdit(spread, element, 'm')).toBe('export const all = [\n  { name: 1 },\n  { name: 3 },\n];\n');
    expect(applyEdit(packed, element, 'm')).toBe('export const all = [{ name: 1 }, { name: 3 },];\n');
    expect(applyEdit(packed, edit('all', '{ name: 1 },', ''), 'm')).toBe('export const all = [ { name: 2 }];\n');
  });

  it('finds a const by its name, its `const` included', () => {
    expect(applyEdit(REFORMATTED, edit('limit', 'const limit = 10;', 'const limit = 11;'), 'm')).toMatch(
      /^const limit = 11;\nexport function refund/,
    );
  });

  it('keeps whitespace inside string literals: a string with other spaces is other text', () => {
    expect(() =>
      applyEdit(SOURCE, edit('handlers.createThing', "message: 'Too much.'", "message: 'Less.'"), 'm'),
    ).toThrow(/no longer contains/);
  });

  it('calls a mutant stale, naming it and what is missing, when its declaration is gone', () => {
    const gone = edit('refundAll', 'return balance + amount;', 'return balance;');
    expect(() => applyEdit(SOURCE, gone, 'refund-forgotten')).toThrow(StaleMutantError);
    expect(() => applyEdit(SOURCE, gone, 'refund-forgotten')).toThrow(
      'refund-forgotten: sandbox/things.ts has no declaration refundAll',
    );
    expect(() => applyEdit(SOURCE, edit('Ledger.refund', 'x', 'y'), 'm')).toThrow(
      'm: sandbox/things.ts has no declaration refund in Ledger.refund',
    );
  });

  it('calls a mutant stale when its text is gone from the declaration, even if it is elsewhere in the file', () => {
    expect(() => applyEdit(SOURCE, edit('Ledger.credit', 'this.total - amount', 'this.total'), 'debit-lost')).toThrow(
      'debit-lost: Ledger.credit in sandbox/things.ts no longer contains "this.total - amount"',
    );
  });

  it('calls a mutant stale when its text occurs more than once in the declaration', () => {
    expect(() => applyEdit(SOURCE, edit('refund', 'return balance', 'return 0'), 'm')).toThrow(
      'm: refund in sandbox/things.ts contains "return balance" 2 times: the text to replace must occur once',
    );
  });

  it('without `within`, looks in the whole file', () => {
    expect(applyEdit('a b c', { file: 'x.ts', find: 'b', replace: 'B' }, 'm')).toBe('a B c');
    expect(() => applyEdit('b b', { file: 'x.ts', find: 'b', replace: 'B' }, 'm')).toThrow(/2 times/);
  });
});

describe('compact', () => {
  it('drops whitespace between tokens but keeps words apart and literals whole', () => {
    expect(compact("return  {\n  a : 'x  y',\n  b: `t  ${ c }  u`, d: / a b /g };").text).toBe(
      "return{a:'x  y',b:`t  ${c}  u`,d:/ a b /g};",
    );
    expect(compact('const   x = await\n  y').text).toBe('const x=await y');
    expect(compact('f(a, b,\n)\n[1,\n2,\n]').text).toBe('f(a,b)[1,2]');
  });

  it('reads an apostrophe in a comment as part of the comment, not as a string', () => {
    expect(compact("// the bank's answer\nconst  a = 'b  c';").text).toBe("// the bank's answer const a='b  c';");
  });

  it('maps each character back to its offset in the source', () => {
    const source = 'a  =\n b';
    const { text, from } = compact(source);
    expect(text).toBe('a=b');
    expect(from.map((offset) => source[offset])).toEqual(['a', '=', 'b']);
  });
});
