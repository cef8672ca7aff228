// The check's three outputs: text for a terminal, Markdown for a pull-request comment, JSON for tools.
// Text and Markdown show each change once, with its verdict for every party it reaches.
import { PARTIES, SEVERITIES, type DiffResult, type Finding, type Party, type Severity } from './types.js';

export interface ChangeGroup {
  rule: string;
  change: string;
  old?: string;
  new?: string;
  /** The worst severity among its verdicts. */
  severity: Severity;
  verdicts: Finding[];
}

/** Findings grouped by the change they report, worst change first (document order otherwise). */
export function groupByChange(findings: readonly Finding[]): ChangeGroup[] {
  const groups = new Map<string, ChangeGroup>();
  for (const finding of findings) {
    const key = `${finding.rule}|${finding.old}|${finding.new}|${finding.change}`;
    const group = groups.get(key) ?? {
      rule: finding.rule,
      change: finding.change,
      ...(finding.old ? { old: finding.old } : {}),
      ...(finding.new ? { new: finding.new } : {}),
      severity: finding.severity,
      verdicts: [],
    };
    group.verdicts.push(finding);
    if (SEVERITIES.indexOf(finding.severity) < SEVERITIES.indexOf(group.severity)) group.severity = finding.severity;
    groups.set(key, group);
  }
  for (const group of groups.values())
    group.verdicts.sort((a, b) => PARTIES.indexOf(a.party) - PARTIES.indexOf(b.party));
  return [...groups.values()].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity));
}

/** `breaking for server; non-breaking for client` */
export const verdictSummary = (group: ChangeGroup): string =>
  group.verdicts.map((finding) => `${finding.severity} for ${partyName(finding.party, true)}`).join('; ');

const partyName = (party: Party, plural = false): string =>
  party === 'callback-receiver' ? `callback receiver${plural ? 's' : ''}` : `${party}${plural ? 's' : ''}`;

export function counts(findings: readonly Finding[]): Record<Severity, number> {
  const result = { breaking: 0, 'potentially-breaking': 0, 'non-breaking': 0 };
  for (const group of groupByChange(findings)) result[group.severity]++;
  return result;
}

function headline(result: DiffResult): string {
  const tally = counts(result.findings);
  const total = tally.breaking + tally['potentially-breaking'] + tally['non-breaking'];
  const versions = `${result.old.title} ${result.old.version} → ${result.new.version}`;
  if (total === 0) return `${versions}: no changes found.`;
  const breaks = PARTIES.filter((party) =>
    result.findings.some((finding) => finding.party === party && finding.severity === 'breaking'),
  );
  return `${versions}: ${total} change${total === 1 ? '' : 's'} (${tally.breaking} breaking, ${tally['potentially-breaking']} potentially breaking, ${tally['non-breaking']} non-breaking)${breaks.length > 0 ? `; breaks ${breaks.map((party) => partyName(party, true)).join(', ')}` : ''}.`;
}

export function formatText(result: DiffResult): string {
  const lines = [headline(result)];
  for (const severity of SEVERITIES) {
    const groups = groupByChange(result.findings).filter((group) => group.severity === severity);
    if (groups.length === 0) continue;
    lines.push('', severity.toUpperCase().replace('-', ' '));
    for (const group of groups) {
      lines.push(`- ${group.change}  [${group.rule}]`);
      for (const finding of group.verdicts)
        lines.push(`    ${partyName(finding.party).padEnd(17)} ${finding.severity}: ${finding.impact}`);
      lines.push(`    ${'location'.padEnd(17)} old ${group.old ?? '-'}  new ${group.new ?? '-'}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function formatMarkdown(result: DiffResult): string {
  const lines = [`### Contract changes`, '', headline(result)];
  const groups = groupByChange(result.findings);
  if (groups.length === 0) return `${lines.join('\n')}\n`;
  lines.push('', '| Severity | Change | Client | Server | Callback receiver |', '|---|---|---|---|---|');
  for (const group of groups) {
    const byParty = (party: Party): string => {
      const finding = group.verdicts.find((candidate) => candidate.party === party);
      return finding ? cell(`**${finding.severity}**: ${finding.impact}`) : '';
    };
    lines.push(
      `| ${group.severity} | ${cell(group.change)} | ${byParty('client')} | ${byParty('server')} | ${byParty('callback-receiver')} |`,
    );
  }
  lines.push('', '<details><summary>Locations (JSON Pointers into the old and the new contract)</summary>', '');
  for (const group of groups)
    lines.push(`- \`${group.rule}\`: old \`${group.old ?? '-'}\`, new \`${group.new ?? '-'}\``);
  lines.push('', '</details>');
  return `${lines.join('\n')}\n`;
}

export function formatJson(result: DiffResult): string {
  return `${JSON.stringify({ ...result, summary: counts(result.findings) }, null, 2)}\n`;
}

/** Whether a finding is at least as severe as `threshold`. */
export const atLeast = (finding: Finding, threshold: Severity): boolean =>
  SEVERITIES.indexOf(finding.severity) <= SEVERITIES.indexOf(threshold);
