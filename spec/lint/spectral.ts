// Spectral (its OpenAPI rules and the OWASP API Security ruleset, configured in spec/lint/spectral.yaml) on
// the bundled contracts. Spectral reads the bundles, not the sources: the sources use Redocly's multi-file
// conventions (a Markdown file as a `$ref`'d description, path items in files of their own) that Spectral
// misreads as schema errors, and the bundle is what partners and every tool read.
//
// A waiver is an `overrides` entry of spectral.yaml that lowers one rule to `hint` at exact JSON Pointers of a
// bundle, each resting on a decision. Waived problems are still reported (as hints), so the lint can tell a
// waiver that no longer matches anything: it fails then, as it does on any error or warning.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { parse } from 'yaml';

/** One finding of `spectral lint --format json`. */
export interface SpectralProblem {
  code: string;
  path: (string | number)[];
  message: string;
  /** 0 error, 1 warning, 2 information, 3 hint. */
  severity: number;
  range: { start: { line: number; character: number } };
  source: string;
}

/** One rule lowered at one location of one bundle. */
export interface Waiver {
  /** The bundle, relative to the repository root. */
  file: string;
  /** JSON Pointer as written in the ruleset (`#/components/securitySchemes/secretKey/scheme`, URI-encoded). */
  pointer: string;
  /** The pointer's tokens, decoded. */
  path: string[];
  rule: string;
}

export interface Verdict {
  /** Errors and warnings: each fails the lint. */
  failures: SpectralProblem[];
  waived: SpectralProblem[];
  /** Waivers no problem matches any more: each fails the lint (remove it). */
  unused: Waiver[];
  /** Information and hints no waiver explains: shown, not failing. */
  notices: SpectralProblem[];
}

const ERROR = 0;
const WARNING = 1;

/** A JSON Pointer (RFC 6901) of a path, for people: not URI-encoded. */
export function pointerOf(path: readonly (string | number)[]): string {
  return `#${path.map((token) => `/${String(token).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('')}`;
}

/** The tokens of a pointer in a URI fragment (`#/paths/~1a~1%7Bid%7D`), decoded. */
export function tokensOf(pointer: string): string[] {
  if (pointer === '#') return [];
  return decodeURIComponent(pointer.replace(/^#\//, ''))
    .split('/')
    .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** Spectral's own matching: the location is the waiver's or inside it. */
const within = (path: readonly (string | number)[], scope: readonly string[]): boolean =>
  scope.every((token, index) => String(path[index]) === token);

/** The waivers of a ruleset: every `overrides` file entry with a pointer, per rule it lowers. */
export function readWaivers(rulesetPath: string, root: string): Waiver[] {
  const ruleset = parse(readFileSync(rulesetPath, 'utf8')) as {
    overrides?: { files: string[]; rules: Record<string, unknown> }[];
  };
  return (ruleset.overrides ?? []).flatMap(({ files, rules }) =>
    files.flatMap((entry) => {
      const [file = '', pointer] = entry.split('#');
      if (pointer === undefined)
        throw new Error(
          `${rulesetPath}: override ${entry} covers a whole file; a waiver names the locations it concerns.`,
        );
      return Object.keys(rules).map((rule) => ({
        file: relative(root, resolve(dirname(rulesetPath), file)),
        pointer: `#${pointer}`,
        path: tokensOf(`#${pointer}`),
        rule,
      }));
    }),
  );
}

/** Sorts the problems of one bundle (`file`, relative to the root) into what fails, what is waived and what is shown. */
export function judge(problems: readonly SpectralProblem[], waivers: readonly Waiver[], file: string): Verdict {
  const mine = waivers.filter((waiver) => waiver.file === file);
  const used = new Set<Waiver>();
  const verdict: Verdict = { failures: [], waived: [], unused: [], notices: [] };
  for (const problem of problems) {
    const waiver = mine.find((candidate) => candidate.rule === problem.code && within(problem.path, candidate.path));
    if (problem.severity === ERROR || problem.severity === WARNING) verdict.failures.push(problem);
    else if (waiver) {
      used.add(waiver);
      verdict.waived.push(problem);
    } else verdict.notices.push(problem);
  }
  verdict.unused = mine.filter((waiver) => !used.has(waiver));
  return verdict;
}

/** Runs the Spectral CLI on one bundle with the ruleset; every finding, whatever its severity. */
export function runSpectral(bundle: string, rulesetPath: string, root: string): SpectralProblem[] {
  const result = spawnSync(
    resolve(root, 'node_modules/.bin/spectral'),
    ['lint', bundle, '--ruleset', rulesetPath, '--format', 'json', '--quiet'],
    {
      cwd: root,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  if (result.error) throw result.error;
  try {
    return JSON.parse(result.stdout) as SpectralProblem[];
  } catch {
    throw new Error(`spectral lint ${bundle} did not produce a JSON report:\n${result.stdout}${result.stderr}`);
  }
}

const SEVERITY = ['error', 'warn', 'info', 'hint'];

/** `file:line:col severity rule message (pointer)`, the line and column 1-based. */
export function formatProblem(problem: SpectralProblem, file: string): string {
  const { line, character } = problem.range.start;
  return `${file}:${line + 1}:${character + 1} ${SEVERITY[problem.severity] ?? problem.severity} ${problem.code} ${problem.message} (${pointerOf(problem.path)})`;
}
