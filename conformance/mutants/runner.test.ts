// The mutant runner starts a copy of the sandbox with the mutant's edits and never the repository's own
// files; a mutant whose text is gone is reported as stale instead of running an unmutated sandbox.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checksFor, compiledBesideSource, judgeMutant, prepareCopy, startMutant, verdictOf } from './runner.js';
import { trialPool } from './workers.js';
import type { Mutant } from './types.js';

/** getBalance answers a string: a response-shape mistake check 1 sees on the first request. */
const balanceAsText: Mutant = {
  name: 'balance-as-text',
  family: 'response_conformance',
  mistake: 'the balance is sent as a string',
  caught: { result: 'response_conformance:getBalance' },
  edits: [
    {
      file: 'balance/index.ts',
      within: 'balanceAndBankHandlers.getBalance',
      find: 'return { status: 200, body: { balance } };',
      replace: 'return { status: 200, body: { balance: String(balance) } } as never;',
    },
  ],
};

describe('compiledBesideSource', () => {
  it('leaves out of the copy a compiled file beside its source, which imports would load instead of the mutated source', () => {
    const folder = mkdtempSync(join(tmpdir(), 'payments-mutant-compiled-'));
    try {
      for (const file of ['index.ts', 'index.js', 'index.d.ts', 'alone.js', 'types.d.ts'])
        writeFileSync(join(folder, file), '');
      expect(
        ['index.ts', 'index.js', 'index.d.ts', 'alone.js', 'types.d.ts'].filter((file) =>
          compiledBesideSource(join(folder, file)),
        ),
      ).toEqual(['index.js', 'index.d.ts']);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});

describe('startMutant', () => {
  it('edits a copy and leaves the sandbox itself alone', () => {
    const root = prepareCopy(balanceAsText);
    const copied = readFileSync(join(root, 'sandbox', 'balance', 'index.ts'), 'utf8');
    rmSync(root, { recursive: true, force: true });
    expect(copied).toContain('String(balance)');
    expect(readFileSync(join(import.meta.dirname, '..', '..', 'sandbox', 'balance', 'index.ts'), 'utf8')).not.toContain(
      'String(balance)',
    );
  });

  it('serves the mutated behaviour, and the unmutated sandbox the real one', async () => {
    for (const [mutant, expected] of [
      [balanceAsText, 'string'],
      [undefined, 'number'],
    ] as const) {
      const target = await startMutant(mutant);
      try {
        const response = await fetch(`${target.url}/balance`, {
          headers: { authorization: `Basic ${Buffer.from(`${target.keys.test}:`).toString('base64')}` },
        });
        expect(typeof ((await response.json()) as { balance: unknown }).balance).toBe(expected);
      } finally {
        await target.close();
      }
    }
  }, 60_000);

  it('judges a mutant caught by the check that sees its mistake', async () => {
    const verdict = await judgeMutant(balanceAsText);
    expect(verdict.error).toBeUndefined();
    expect(verdict.caught).toBe(true);
    expect(verdict.failedResults).toContain('response_conformance:getBalance');
  }, 60_000);

  it('reports a stale mutant as an error, not as a pass', async () => {
    const stale: Mutant = {
      ...balanceAsText,
      name: 'stale',
      edits: [
        {
          file: 'balance/index.ts',
          within: 'balanceAndBankHandlers.getBalance',
          find: 'text that is not there',
          replace: '',
        },
      ],
    };
    const verdict = await judgeMutant(stale);
    expect(verdict.caught).toBe(false);
    expect(verdict.error).toMatch(/no longer contains/);
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith('payments-mutant-stale-'))).toEqual([]);
  });
});

describe('verdictOf', () => {
  const trial = {
    failedResults: ['response_conformance:getBalance', 'positive_data:getBalance'],
    notRunResults: [],
    failures: { 'response_conformance:getBalance': [{ message: '/balance must be number', curl: 'curl …' }] },
    keysInCommands: [],
    wallMs: 1,
  };

  it('counts a mutant caught where it names', () => {
    expect(verdictOf(balanceAsText, trial)).toMatchObject({ caught: true, byFamily: true });
  });

  it('counts a mutant caught elsewhere only as not caught, saying where it was not', () => {
    const elsewhere = { ...balanceAsText, caught: { result: 'response_conformance:getDisbursement' } };
    expect(verdictOf(elsewhere, trial)).toMatchObject({
      caught: false,
      misplaced: 'response_conformance:getDisbursement did not fail',
    });
  });

  it('counts a run whose reproducing commands show a key as not caught', () => {
    expect(verdictOf(balanceAsText, { ...trial, keysInCommands: ['auth:getBalance'] })).toMatchObject({
      caught: false,
      misplaced: 'an API key shows in the commands of auth:getBalance',
    });
  });
});

describe('the checks a mutant is judged by', () => {
  it("are its family's, with the checks whose answers or deliveries that family judges", () => {
    expect(checksFor({ ...balanceAsText, family: 'money' })).toEqual(['money']);
    expect(checksFor(balanceAsText)).toEqual([
      'response_conformance',
      'positive_data',
      'negative_data',
      'stateful_workflows',
    ]);
  });
});

describe('trialPool', () => {
  it('runs trials in worker processes with the verdict they get here', async () => {
    const pool = trialPool(2);
    try {
      const [mutated, clean] = await Promise.all([
        pool.run({ mutant: balanceAsText, only: checksFor(balanceAsText) }),
        pool.run({ only: checksFor(balanceAsText) }),
      ]);
      expect(mutated.error).toBeUndefined();
      expect(mutated.failedResults).toContain('response_conformance:getBalance');
      expect(clean).toMatchObject({ failedResults: [] });
      expect(clean.error).toBeUndefined();
    } finally {
      pool.close();
    }
  }, 120_000);
});
