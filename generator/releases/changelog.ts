// `npm run changelog`: writes the changelog of the contract's info description (spec/info-description.md,
// between the markers) from the change check: one entry per release, its version and date then a list of
// its changes, each as the check's sentence with its verdict per party, diffed against the release before it.
// (A table's Changes column was clipped by the docs page and thousands of pixels tall.) A working contract
// whose info.version is above the last release gets an "unreleased" entry of its own, so
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
/** A change as one Markdown list item: on one line, whatever its sentence holds. */
const item = (text: string): string => `- ${text.replaceAll('\n', ' ')}`;

/** More changes of one kind than this, with the same verdicts, are one line of the changelog, not one each. */
export const LISTED_PER_KIND = 3;

/**
 * One line per change; where a release makes many changes of one kind with the same verdicts (a bound set on
 * every string), one line gives the first as the example and says how many more there are, in words a reader
 * follows: the changelog stays readable, and `payments-contract diff` lists each.
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
    const more = (kind.length - 1).toLocaleString('en-US');
    return [`${sentence(first)}, and ${more} more changes like it (${verdictSummary(first)}).`];
  });
}

function changeItems(before: JsonObject, after: JsonObject): string[] {
  const groups = groupByChange(diffContracts(before, after).findings);
  if (groups.length === 0) return [item('No change to what the contract states (descriptions only).')];
  return changeLines(groups).map(item);
}

/** A release's entry: its version and date on a line of their own, then a list of its changes. */
const entry = (version: string, date: string, changes: string[]): string =>
  [`**${version}**, ${date}:`, '', ...changes].join('\n');

/** The changelog between the markers: newest first, the working version first when it is above the last release. */
export function changelogEntries(releases: readonly Release[], working: JsonObject): string {
  const entries: string[] = [];
  const last = releases.at(-1);
  if (last && compareVersions(versionOf(working), last.version) > 0)
    entries.push(entry(versionOf(working), 'unreleased', changeItems(last.doc, working)));
  for (let index = releases.length - 1; index > 0; index--) {
    const release = releases[index] as Release;
    entries.push(entry(release.version, release.date, changeItems((releases[index - 1] as Release).doc, release.doc)));
  }
  return entries.join('\n\n');
}

/** The description with its changelog rewritten. */
export function withChangelog(description: string, changelog: string): string {
  const start = description.indexOf(CHANGELOG_START);
  const end = description.indexOf(CHANGELOG_END);
  if (start < 0 || end < start)
    throw new Error(`${descriptionPath} has no changelog markers (${CHANGELOG_START} ... ${CHANGELOG_END})`);
  return `${description.slice(0, start + CHANGELOG_START.length)}\n${changelog}\n${description.slice(end)}`;
}

export const readWorkingContract = (files: ReleaseFiles = repository): JsonObject =>
  JSON.parse(readFileSync(files.workingContract, 'utf8')) as JsonObject;

/** What spec/info-description.md should hold now. */
export function expectedDescription(
  working: JsonObject = readWorkingContract(),
  files: ReleaseFiles = repository,
): string {
  return withChangelog(
    readFileSync(files.description, 'utf8'),
    changelogEntries(readReleases(files.releases), working),
  );
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

Writes the changelog of spec/info-description.md from the released contracts in spec/releases/
and the change check (one sentence and verdict per change), plus an "unreleased" entry when the working
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
