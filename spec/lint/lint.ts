// `npm run lint`: Redocly's lint (redocly.yaml, with the project's plugin) on every API's source, then Spectral
// (spec/lint/spectral.yaml: its OpenAPI rules and the OWASP API Security ruleset) on every API's bundle. It fails
// on warnings as well as errors: the contracts are published to partners, so nothing it reports is left
// standing. Prints one line per problem, `file:line:col severity rule message`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { formatProblem, judge, readWaivers, runSpectral } from './spectral.js';

interface LintLocation {
  source: { ref: string };
  pointer: string;
  start?: { line: number; col: number };
}
interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: LintLocation[];
}
interface LintReport {
  totals: { errors: number; warnings: number; ignored: number };
  problems: LintProblem[];
}
interface Totals {
  errors: number;
  warnings: number;
}

const root = fileURLToPath(new URL('../..', import.meta.url));
const spectralRuleset = join(root, 'spec/lint/spectral.yaml');
/** Where `npm run bundle` writes each API of redocly.yaml. */
const BUNDLES: Record<string, string> = {
  payments: 'generated/contract/openapi.json',
  sandbox: 'generated/contract/sandbox/openapi.json',
};
const redoclyEnv = { ...process.env, REDOCLY_TELEMETRY: 'off' };

function lintSource(api: string): Totals {
  const result = spawnSync(
    'redocly',
    ['lint', api, '--format=json', '--max-problems=10000', ...process.argv.slice(2)],
    {
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      shell: false,
      env: redoclyEnv,
    },
  );
  if (result.error) throw result.error;
  let report: LintReport;
  try {
    report = JSON.parse(result.stdout) as LintReport;
  } catch {
    process.stderr.write(result.stdout + result.stderr);
    console.error(`redocly lint ${api} did not produce a JSON report.`);
    process.exit(2);
  }
  for (const problem of report.problems) {
    const where = problem.location[0];
    const position = where?.start ? `${where.start.line}:${where.start.col}` : (where?.pointer ?? '');
    console.log(`${where?.source.ref ?? '?'}:${position} ${problem.severity} ${problem.ruleId} ${problem.message}`);
  }
  console.log(`redocly lint ${api}: ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
  return { errors: report.totals.errors, warnings: report.totals.warnings };
}

/** True when the committed bundle is what bundling the source gives now (Spectral reads the committed one). */
function bundleIsFresh(source: string, bundle: string, workDir: string): boolean {
  const fresh = join(workDir, 'fresh.json');
  const result = spawnSync(
    join(root, 'node_modules/.bin/redocly'),
    ['bundle', source, '--ext', 'json', '--output', fresh],
    { cwd: root, encoding: 'utf8', env: redoclyEnv },
  );
  if (result.error) throw result.error;
  if (result.status !== 0) return false;
  return readFileSync(join(root, bundle), 'utf8') === readFileSync(fresh, 'utf8');
}

function lintBundle(source: string, bundle: string, workDir: string): Totals {
  const totals: Totals = { errors: 0, warnings: 0 };
  if (!bundleIsFresh(source, bundle, workDir)) {
    console.log(`${bundle} error bundle-stale ${bundle} is not what ${source} bundles to now: run npm run bundle.`);
    totals.errors += 1;
  }
  const verdict = judge(
    runSpectral(resolve(root, bundle), spectralRuleset, root),
    readWaivers(spectralRuleset, root),
    bundle,
  );
  for (const problem of [...verdict.failures, ...verdict.notices]) console.log(formatProblem(problem, bundle));
  for (const waiver of verdict.unused)
    console.log(
      `spec/lint/spectral.yaml error waiver-unused ${waiver.rule} is waived at ${bundle}${waiver.pointer}, where it finds nothing: remove the waiver.`,
    );
  totals.errors += verdict.failures.filter((problem) => problem.severity === 0).length + verdict.unused.length;
  totals.warnings += verdict.failures.filter((problem) => problem.severity === 1).length;
  console.log(
    `spectral lint ${bundle}: ${totals.errors} errors, ${totals.warnings} warnings, ${verdict.waived.length} waived (spec/lint/spectral.yaml)`,
  );
  return totals;
}

const config = parse(readFileSync(join(root, 'redocly.yaml'), 'utf8')) as { apis?: Record<string, { root: string }> };
const workDir = mkdtempSync(join(tmpdir(), 'lint-'));
let errors = 0;
let warnings = 0;
try {
  for (const [api, { root: source }] of Object.entries(config.apis ?? {})) {
    const results = [lintSource(api)];
    const bundle = BUNDLES[api];
    if (bundle) results.push(lintBundle(source, bundle, workDir));
    else {
      console.log(
        `redocly.yaml error lint-bundle API ${api} has no bundle known to spec/lint/lint.ts, so Spectral cannot lint it.`,
      );
      errors += 1;
    }
    for (const result of results) {
      errors += result.errors;
      warnings += result.warnings;
    }
  }
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
console.log(`lint: ${errors} errors, ${warnings} warnings`);
process.exit(errors + warnings === 0 ? 0 : 1);
