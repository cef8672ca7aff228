// Runs `redocly lint` on every API in redocly.yaml and fails on warnings as well as errors: the contracts
// are published to partners, so nothing it reports is left standing. Prints one line per problem,
// `file:line:col severity rule message`.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';

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

function lintApi(api: string): LintReport {
  const result = spawnSync('redocly', ['lint', api, '--format=json', '--max-problems=10000', ...process.argv.slice(2)], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    shell: false,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off' },
  });
  if (result.error) throw result.error;
  try {
    return JSON.parse(result.stdout) as LintReport;
  } catch {
    process.stderr.write(result.stdout + result.stderr);
    console.error(`redocly lint ${api} did not produce a JSON report.`);
    process.exit(2);
  }
}

const config = parse(readFileSync('redocly.yaml', 'utf8')) as { apis?: Record<string, unknown> };
let errors = 0;
let warnings = 0;
for (const api of Object.keys(config.apis ?? {})) {
  const report = lintApi(api);
  for (const problem of report.problems) {
    const where = problem.location[0];
    const position = where?.start ? `${where.start.line}:${where.start.col}` : where?.pointer ?? '';
    console.log(`${where?.source.ref ?? '?'}:${position} ${problem.severity} ${problem.ruleId} ${problem.message}`);
  }
  errors += report.totals.errors;
  warnings += report.totals.warnings;
  console.log(`lint ${api}: ${report.totals.errors} errors, ${report.totals.warnings} warnings`);
}
console.log(`lint: ${errors} errors, ${warnings} warnings`);
process.exit(errors + warnings === 0 ? 0 : 1);
