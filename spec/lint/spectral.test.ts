// Spectral on the bundled contracts: the judgement of its findings against the waivers of spec/lint/spectral.yaml,
// and the contracts themselves, which must come out with no error or warning and with every waiver in use.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  formatProblem,
  judge,
  pointerOf,
  readWaivers,
  runSpectral,
  tokensOf,
  type SpectralProblem,
  type Waiver,
} from './spectral.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ruleset = join(root, 'spec/lint/spectral.yaml');

const problem = (code: string, path: string[], severity: number): SpectralProblem => ({
  code,
  path,
  message: `${code} here`,
  severity,
  range: { start: { line: 4, character: 2 } },
  source: '/x/openapi.json',
});
const waiver = (rule: string, pointer: string, file = 'openapi.json'): Waiver => ({
  rule,
  pointer,
  path: tokensOf(pointer),
  file,
});
const basic = waiver('no-http-basic', '#/components/securitySchemes/secretKey/scheme');
const slash = waiver('no-trailing-slash', '#/paths/~1direct_debits~1%7Bid%7D~1');

describe('judging Spectral findings against the waivers', () => {
  const cases: [
    string,
    {
      problems: SpectralProblem[];
      waivers: Waiver[];
      want: { failures: number; waived: number; unused: Waiver[]; notices: number };
    },
  ][] = [
    [
      'a waived problem (lowered to a hint) is waived and uses its waiver',
      {
        problems: [problem('no-http-basic', ['components', 'securitySchemes', 'secretKey', 'scheme'], 3)],
        waivers: [basic],
        want: { failures: 0, waived: 1, unused: [], notices: 0 },
      },
    ],
    [
      "a waiver matches inside its location, through the pointer's escapes and URI encoding",
      {
        problems: [problem('no-trailing-slash', ['paths', '/direct_debits/{id}/', 'get'], 3)],
        waivers: [slash],
        want: { failures: 0, waived: 1, unused: [], notices: 0 },
      },
    ],
    [
      'a waiver that matches nothing is unused',
      { problems: [], waivers: [basic], want: { failures: 0, waived: 0, unused: [basic], notices: 0 } },
    ],
    [
      'a waiver of another rule does not use itself on a problem',
      {
        problems: [problem('string-limit', ['components', 'securitySchemes', 'secretKey', 'scheme'], 3)],
        waivers: [basic],
        want: { failures: 0, waived: 0, unused: [basic], notices: 1 },
      },
    ],
    [
      'a waiver of another bundle does not count for this one',
      {
        problems: [problem('no-http-basic', ['components', 'securitySchemes', 'secretKey', 'scheme'], 3)],
        waivers: [waiver('no-http-basic', basic.pointer, 'sandbox/openapi.json')],
        want: { failures: 0, waived: 0, unused: [], notices: 1 },
      },
    ],
    [
      'a location next to the waived one is not waived',
      {
        problems: [problem('no-trailing-slash', ['paths', '/direct_debits/{id}/validate_otp/'], 3)],
        waivers: [slash],
        want: { failures: 0, waived: 0, unused: [slash], notices: 1 },
      },
    ],
    [
      'errors and warnings fail, even where a waiver would match (Spectral did not apply it)',
      {
        problems: [
          problem('no-http-basic', ['components', 'securitySchemes', 'secretKey', 'scheme'], 0),
          problem('string-restricted', ['components'], 1),
        ],
        waivers: [basic],
        want: { failures: 2, waived: 0, unused: [basic], notices: 0 },
      },
    ],
  ];
  it.each(cases)('%s', (_name, { problems, waivers, want }) => {
    const verdict = judge(problems, waivers, 'openapi.json');
    expect({
      failures: verdict.failures.length,
      waived: verdict.waived.length,
      unused: verdict.unused,
      notices: verdict.notices.length,
    }).toEqual(want);
  });

  it('prints a problem as file:line:col severity rule message (pointer), 1-based', () => {
    expect(
      formatProblem(
        problem('no-trailing-slash', ['paths', '/direct_debits/{id}/'], 3),
        'generated/contract/openapi.json',
      ),
    ).toBe(
      'generated/contract/openapi.json:5:3 hint no-trailing-slash no-trailing-slash here (#/paths/~1direct_debits~1{id}~1)',
    );
    expect(pointerOf(['a~b', 'c/d', 0])).toBe('#/a~0b/c~1d/0');
  });
});

describe('reading the waivers of a ruleset', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spectral-waivers-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads each file#pointer of each override, per rule, with the file relative to the repository', () => {
    const file = join(dir, 'ruleset.yaml');
    writeFileSync(
      file,
      "overrides:\n  - files: ['out/api.json#/paths/~1a~1%7Bid%7D']\n    rules: { rule-a: hint, rule-b: hint }\n",
    );
    expect(readWaivers(file, dir)).toEqual([
      { file: 'out/api.json', pointer: '#/paths/~1a~1%7Bid%7D', path: ['paths', '/a/{id}'], rule: 'rule-a' },
      { file: 'out/api.json', pointer: '#/paths/~1a~1%7Bid%7D', path: ['paths', '/a/{id}'], rule: 'rule-b' },
    ]);
  });

  it('refuses an override of a whole file: a waiver names its locations', () => {
    const file = join(dir, 'whole.yaml');
    writeFileSync(file, "overrides:\n  - files: ['out/api.json']\n    rules: { rule-a: 'off' }\n");
    expect(() => readWaivers(file, dir)).toThrow(/covers a whole file/);
  });
});

describe.each(['generated/contract/openapi.json', 'generated/contract/sandbox/openapi.json'])(
  'Spectral on %s',
  (bundle) => {
    it('finds no error or warning, and every waiver of spec/lint/spectral.yaml still matches a problem', () => {
      const verdict = judge(runSpectral(join(root, bundle), ruleset, root), readWaivers(ruleset, root), bundle);
      expect(verdict.failures.map((failure) => formatProblem(failure, bundle))).toEqual([]);
      expect(verdict.unused.map((unused) => `${unused.rule} at ${unused.pointer}`)).toEqual([]);
      expect(verdict.waived.length).toBeGreaterThan(0);
    }, 120_000);
  },
);
