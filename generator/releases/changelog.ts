// `npm run changelog`: writes the changelog table of the contract's info description
// (spec/info-description.md, between the markers) from the change check: one row per release, each
// change as the check's sentence with its verdict per party, diffed against the release before it. A
// working contract whose info.version is above the last release gets an "unreleased" row of its own, so
// announcing a change is: raise the version, run this. The releases before the first one kept in
// spec/releases/ stay as written below the markers (the interface specification's release list).
//   --check          write nothing; exit 1 when the file differs from what this would write (drift check)
//   --release DATE   first record the working contract as a release made on DATE (YYYY-MM-DD)
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readCommandLine, STANDARD_USAGE_LINES } from '../runtime/command-line.js';
import type { JsonObject } from '../model/types.js';
import { diffContracts } from '../diff/diff.js';
import { groupByChange, verdictSummary, type ChangeGroup } from '../diff/format.js';
import { compareVersions, readReleaseEntries, readReleases, type Release } from './releases.js';

/** The files a release reads and writes, in a checkout of the repository at `root`. */
export interface ReleaseFiles {
  description: string;
  releases: string;
  workingContract: string;
}
export const releaseFiles = (root: string): ReleaseFiles => ({
  description: join(root, 'spec/info-description.md'),
  releases: join(root, 'spec/releases/'),
  workingContract: join(root, 'generated/contract/openapi.json'),
});
const repository = releaseFiles(fileURLToPath(new URL('../../', import.meta.url)));
export const descriptionPath = repository.description;
export const workingContractPath = repository.workingContract;

export const CHANGELOG_START =
  '<!-- changelog: written by `npm run changelog` from spec/releases/ and the change check; do not edit by hand -->';
export const CHANGELOG_END = '<!-- end of changelog -->';

const versionOf = (doc: JsonObject): string => String((doc.info as JsonObject | undefined)?.version ?? '');
const cell = (text: string): string => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** More changes of one kind than this, with the same verdicts, are one line of the changelog, not one each. */
export const LISTED_PER_KIND = 3;

/**
 * One line per change; where a release makes many changes of one kind with the same verdicts (a bound set on
 * every string), one line says how many, with the first as the example: the changelog stays readable, and
 * `payments-contract diff` lists each.
 */
export function changeLines(groups: readonly ChangeGroup[]): string[] {
  const kinds = new Map<string, ChangeGroup[]>();
  for (const group of groups) {
    const key = `${group.rule}|${verdictSummary(group)}`;
    kinds.set(key, [...(kinds.get(key) ?? []), group]);
  }
  const sentence = (group: ChangeGroup): string => group.change.replace(/\.$/, '');
  return [...kinds.values()].flatMap((kind) => {
    const first = kind[0] as ChangeGroup;
    if (kind.length <= LISTED_PER_KIND) return kind.map((group) => `${sentence(group)} (${verdictSummary(group)}).`);
    return [
      `${kind.length} changes of one kind (\`${first.rule}\`), such as: ${sentence(first)} (${verdictSummary(first)}).`,
    ];
  });
}

function changesCell(before: JsonObject, after: JsonObject): string {
  const groups = groupByChange(diffContracts(before, after).findings);
  if (groups.length === 0) return 'No change to what the contract states (descriptions only).';
  return changeLines(groups).map(cell).join('<br>');
}

/** The table between the markers: newest first, the working version first when it is above the last release. */
export function changelogTable(releases: readonly Release[], working: JsonObject): string {
  const rows: string[] = [];
  const last = releases.at(-1);
  if (last && compareVersions(versionOf(working), last.version) > 0)
    rows.push(`| ${versionOf(working)} | unreleased | ${changesCell(last.doc, working)} |`);
  for (let index = releases.length - 1; index > 0; index--) {
    const release = releases[index] as Release;
    rows.push(
      `| ${release.version} | ${release.date} | ${changesCell((releases[index - 1] as Release).doc, release.doc)} |`,
    );
  }
  return ['| Release | Date | Changes |', '|---|---|---|', ...rows].join('\n');
}

/** The description with its changelog table rewritten. */
export function withChangelog(description: string, table: string): string {
  const start = description.indexOf(CHANGELOG_START);
  const end = description.indexOf(CHANGELOG_END);
  if (start < 0 || end < start)
    throw new Error(`${descriptionPath} has no changelog markers (${CHANGELOG_START} ... ${CHANGELOG_END})`);
  return `${description.slice(0, start + CHANGELOG_START.length)}\n${table}\n${description.slice(end)}`;
}

export const readWorkingContract = (files: ReleaseFiles = repository): JsonObject =>
  JSON.parse(readFileSync(files.workingContract, 'utf8')) as JsonObject;

/** What spec/info-description.md should hold now. */
export function expectedDescription(
  working: JsonObject = readWorkingContract(),
  files: ReleaseFiles = repository,
): string {
  return withChangelog(readFileSync(files.description, 'utf8'), changelogTable(readReleases(files.releases), working));
}

/** Records the working contract as a release made on `date` (spec/releases/). */
export function recordRelease(date: string, working: JsonObject, files: ReleaseFiles = repository): void {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`--release needs a date as YYYY-MM-DD, not ${date}`);
  const version = versionOf(working);
  const entries = readReleaseEntries(files.releases);
  const last = entries.at(-1);
  if (last && compareVersions(version, last.version) <= 0)
    throw new Error(
      `the working contract's version ${version} is not above the last release ${last.version}: raise info.version in spec/openapi.yaml first`,
    );
  const file = `openapi-${version}.json`;
  copyFileSync(files.workingContract, join(files.releases, file));
  const manifestPath = join(files.releases, 'releases.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as { releases: unknown[] };
  manifest.releases.push({ version, date, contract: file });
  writeFileSync(manifestPath, `${JSON.stringify(manifest, null, 2)}\n`);
}

const COMMAND = {
  name: 'changelog',
  usage: `Usage: npm run changelog [-- --check | --release DATE]

Writes the changelog table of spec/info-description.md from the released contracts in spec/releases/
and the change check (one sentence and verdict per change), plus an "unreleased" row when the working
contract's info.version (generated/contract/openapi.json: run npm run bundle first) is above the last
release.

Options:
  --check                    write nothing; exit 1 when the file is out of date.
  --release DATE             first record the working contract as released on DATE (YYYY-MM-DD).
                             e.g. --release 2026-12-01
${STANDARD_USAGE_LINES}`,
  options: { check: { type: 'boolean' }, release: { type: 'string' } },
  module: import.meta.url,
} as const;

function main(): number {
  const line = readCommandLine(COMMAND, process.argv.slice(2));
  if (typeof line === 'number') return line;
  const working = readWorkingContract();
  if (line.values.release !== undefined) recordRelease(line.values.release, working);
  const expected = expectedDescription(working);
  if (line.values.check === true) {
    if (expected === readFileSync(descriptionPath, 'utf8')) return 0;
    process.stderr.write(
      'spec/info-description.md: the changelog is out of date (run npm run changelog, then npm run bundle).\n',
    );
    return 1;
  }
  writeFileSync(descriptionPath, expected);
  process.stdout.write(
    'Wrote the changelog of spec/info-description.md; run npm run bundle to put it in the bundled contract.\n',
  );
  return 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main();
