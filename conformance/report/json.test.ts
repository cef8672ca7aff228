import { describe, expect, it } from 'vitest';
import { fixtureSummary } from './fixture.js';
import { JSON_REPORT_FORMAT, toJsonReport } from './json.js';

describe('JSON report', () => {
  it('is the run summary plus the format and the contract it judged against', () => {
    const summary = fixtureSummary();
    const report = JSON.parse(
      toJsonReport(summary, { contract: { title: 'Payments API', version: '1.0.0' } }),
    ) as Record<string, unknown>;
    expect(report).toEqual({
      format: JSON_REPORT_FORMAT,
      contract: { title: 'Payments API', version: '1.0.0' },
      ...summary,
    });
  });
});
