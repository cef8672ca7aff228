// The release check `npm test` runs: the working service contract against the last released one
// (spec/releases/). A change that breaks clients or callback receivers (the parties who install the
// contract) fails unless announced: info.version raised above the last release, and the changelog
// regenerated (the drift check below), which then lists it under that version. Changes that only oblige
// servers (a new operation, a new optional request field) pass: the sandbox's own tests and the
// conformance suite hold the implementations to them.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diffContracts } from '../diff/diff.js';
import { groupByChange } from '../diff/format.js';
import type { JsonObject } from '../model/types.js';
import { descriptionPath, expectedDescription, readWorkingContract } from './changelog.js';
import { compareVersions, readReleases } from './releases.js';

const releases = readReleases();
const last = releases.at(-1)!;
const working = readWorkingContract();
const workingVersion = String((working.info as JsonObject).version);

describe('release check', () => {
  it('finds no change that breaks clients or callback receivers unless the version announces it', () => {
    const breaking = diffContracts(last.doc, working).findings.filter(
      (finding) => finding.severity === 'breaking' && finding.party !== 'server',
    );
    const announced = compareVersions(workingVersion, last.version) > 0;
    const unannounced = announced
      ? []
      : groupByChange(breaking).map((group) => `${group.change} (${group.verdicts.map((v) => v.party).join(', ')})`);
    expect(
      unannounced,
      `breaking changes since release ${last.version}: raise info.version in spec/openapi.yaml and run npm run changelog`,
    ).toEqual([]);
  });

  it('keeps the changelog in spec/info-description.md as npm run changelog writes it', () => {
    expect(readFileSync(descriptionPath, 'utf8')).toBe(expectedDescription(working));
  });

  it('keeps the working version at or above the last release', () => {
    expect(compareVersions(workingVersion, last.version)).toBeGreaterThanOrEqual(0);
  });
});

describe('release 1.4.11 (the 1.4.10 fixture: the same contract with the old maximum disbursement)', () => {
  const [v1410, v1411] = releases.filter((release) => ['1.4.10', '1.4.11'].includes(release.version));
  const findings = diffContracts(v1410!.doc, v1411!.doc).findings;

  it('reports exactly the raised maximum for other banks, once per party', () => {
    expect(findings.map(({ rule, party, severity }) => ({ rule, party, severity }))).toEqual([
      { rule: 'request-maximum-increased', party: 'server', severity: 'breaking' },
      { rule: 'request-maximum-increased', party: 'client', severity: 'non-breaking' },
    ]);
    expect(findings[0]!.change).toContain(
      '`amount` maximum rose from 50000000 to 100000000 when `bank_code` is not one of BCA',
    );
    expect(findings[0]!.old).toBe(
      '#/components/schemas/CreateDisbursementRequest/allOf/2/then/allOf/0/properties/amount/maximum',
    );
  });

  it('calls it non-breaking for clients and breaking for servers that still enforce the old limit', () => {
    expect(findings.find((finding) => finding.party === 'client')).toMatchObject({
      severity: 'non-breaking',
      impact: 'every request that was valid stays valid',
    });
    expect(findings.find((finding) => finding.party === 'server')).toMatchObject({
      severity: 'breaking',
      impact: expect.stringContaining('still enforces the old rule'),
    });
  });
});
