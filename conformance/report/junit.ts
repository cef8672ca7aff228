// JUnit XML for CI dashboards: one <testsuite> per check, one <testcase> per operation (or subject) and
// check. A failure carries every failing finding with its reproducing command; a skip carries its reason,
// saying whether the check could not run or does not apply; warnings and notes go to <system-out> so they
// are visible without failing the build. A run that is incomplete gets one more test case, in error,
// listing what was not checked: dashboards count skips as harmless, and such a run has not passed.
import { CHECK_NAMES, type CheckResult, type RunSummary } from '../types.js';
import { notCheckedGroups, notCheckedLine } from './not-checked.js';
import { formatFinding } from './summary.js';

/** Escapes text for XML content and attributes; drops characters XML 1.0 cannot carry at all. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\u0009\u000A\u000D\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

function testcase(result: CheckResult): string {
  const open = `    <testcase classname="${xmlEscape(result.check)}" name="${xmlEscape(result.subject)}" assertions="${result.cases}"`;
  const failures = result.findings.filter((f) => f.severity === 'failure');
  const warnings = result.findings.filter((f) => f.severity === 'warning');
  const children: string[] = [];
  if (result.outcome === 'failed') {
    const first = failures[0]?.message ?? 'failed';
    children.push(
      `      <failure message="${xmlEscape(first)}" type="${xmlEscape(result.check)}">${xmlEscape(failures.map(formatFinding).join('\n\n'))}</failure>`,
    );
  }
  if (result.outcome === 'skipped')
    children.push(
      `      <skipped message="${result.notApplicable ? 'not applicable' : 'not run'}: ${xmlEscape(result.skippedReason ?? 'no reason given')}"/>`,
    );
  const out = [
    ...(result.unchecked ?? []).map((part) => `not run: ${part}`),
    ...warnings.map((w) => `warning: ${formatFinding(w)}`),
    ...(result.notes ?? []).map((note) => `note: ${note}`),
  ];
  if (out.length > 0) children.push(`      <system-out>${xmlEscape(out.join('\n\n'))}</system-out>`);
  return children.length === 0 ? `${open}/>` : `${open}>\n${children.join('\n')}\n    </testcase>`;
}

export function toJUnit(summary: RunSummary): string {
  const seconds = (summary.wallMs / 1000).toFixed(3);
  const suites = CHECK_NAMES.map((check) => summary.results.filter((r) => r.check === check))
    .filter((results) => results.length > 0)
    .map((results) => {
      const check = results[0]?.check ?? '';
      const failures = results.filter((r) => r.outcome === 'failed').length;
      const skipped = results.filter((r) => r.outcome === 'skipped').length;
      return `  <testsuite name="${xmlEscape(check)}" tests="${results.length}" failures="${failures}" errors="0" skipped="${skipped}" timestamp="${xmlEscape(summary.startedAt)}">\n${results.map(testcase).join('\n')}\n  </testsuite>`;
    });
  const completeness = completenessSuite(summary);
  const errors = completeness ? 1 : 0;
  const { passed, failed, skipped } = summary.counts;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="payments-conformance ${xmlEscape(summary.baseUrl)} (${summary.profile})" tests="${passed + failed + skipped + errors}" failures="${failed}" errors="${errors}" skipped="${skipped}" time="${seconds}">\n${[...suites, ...(completeness ? [completeness] : [])].join('\n')}\n</testsuites>\n`;
}

/** The test case a run with checks not run fails on: what was not checked, one line per check and reason. */
function completenessSuite(summary: RunSummary): string | undefined {
  const groups = notCheckedGroups(summary.results);
  if (groups.length === 0) return undefined;
  const message = `incomplete: ${summary.counts.notRun} result(s) not run`;
  const details = groups.map((group) => notCheckedLine(group, Infinity)).join('\n');
  return `  <testsuite name="completeness" tests="1" failures="0" errors="1" skipped="0" timestamp="${xmlEscape(summary.startedAt)}">\n    <testcase classname="completeness" name="every selected check ran">\n      <error message="${xmlEscape(message)}" type="incomplete">${xmlEscape(details)}</error>\n    </testcase>\n  </testsuite>`;
}
