// The machine-readable report: the run summary as the library returns it, plus what it was run against, so
// a stored report says which contract version and target it judged.
import type { RunSummary } from '../types.js';

export interface JsonReportContext {
  /** The contract's info.title and info.version. */
  contract?: { title: string; version: string; specPath?: string };
}

export const JSON_REPORT_FORMAT = 'payments-conformance/1';

export function toJsonReport(summary: RunSummary, context: JsonReportContext = {}): string {
  return `${JSON.stringify({ format: JSON_REPORT_FORMAT, ...context, ...summary }, null, 2)}\n`;
}
