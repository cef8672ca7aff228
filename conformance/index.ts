// The suite as a library: run it from a test file and get the same results as the CLI.
export { runConformance, isSelected, matchesPattern } from './run.js';
export { loadContract, createContract, defaultSpecPath, type Contract } from './contract.js';
export { CHECK_NAMES, PROFILES, PROFILE_CHECKS } from './types.js';
export type {
  Check,
  CheckContext,
  CheckName,
  CheckResult,
  Finding,
  Outcome,
  Profile,
  RunCounts,
  RunOptions,
  RunSummary,
  Verdict,
} from './types.js';
export { isNotRun, notRunReasons } from './verdict.js';
export { preflight, type PreflightProblem } from './preflight.js';
export { formatSummary, summaryTable, totalsLine, formatFinding } from './report/summary.js';
export { createProgress, resultLine, type Progress, type ProgressStream } from './report/terminal.js';
export { toJUnit } from './report/junit.js';
export { toJsonReport, JSON_REPORT_FORMAT } from './report/json.js';
export { main as runCli, EXIT_STATUS } from './cli.js';
