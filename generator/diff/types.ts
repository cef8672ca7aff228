// What the contract change check reports. A finding is one difference seen by one party: the same change
// is usually reported twice (once for clients, once for servers), each with its own severity, because a
// relaxed request bound is harmless to a caller and a new obligation for an implementer.
import type { Json, JsonObject } from '@payments-contract/model/types';

export type Severity = 'breaking' | 'potentially-breaking' | 'non-breaking';
/** Worst first: the order reports list findings in and `--fail-on` compares with. */
export const SEVERITIES: readonly Severity[] = ['breaking', 'potentially-breaking', 'non-breaking'];

/**
 * client: a team calling the service (it sends requests, reads responses).
 * server: a team implementing the contract (the service, the sandbox, a mock).
 * callback-receiver: the merchant's endpoint the service POSTs callbacks to; the direction flips there.
 */
export type Party = 'client' | 'server' | 'callback-receiver';
export const PARTIES: readonly Party[] = ['client', 'server', 'callback-receiver'];

/**
 * The family of rules a finding comes from: the parts of OpenAPI a generic tool also compares, and the
 * vendor extensions that carry this contract's semantics, which only this check reads.
 */
export type Family =
  | 'operations'
  | 'parameters'
  | 'request-bodies'
  | 'responses'
  | 'security'
  | 'webhooks'
  | 'x-delivery'
  | 'x-error-codes'
  | 'x-error-triggers'
  | 'x-state-machines'
  | 'x-test-mode'
  | 'x-validation-error'
  | 'x-decisions'
  | 'x-extensions';

export interface Finding {
  /** Stable identifier of the rule, e.g. `request-property-maximum-increased`. */
  rule: string;
  family: Family;
  severity: Severity;
  party: Party;
  /** JSON Pointers (`#/...`) into the old and the new contract; absent on the side where it does not exist. */
  old?: string;
  new?: string;
  /** What changed, the same for every party (the changelog's sentence). */
  change: string;
  /** What it means for this party. */
  impact: string;
}

/** One side of a comparison: a node of a contract and where it is. */
export interface Located {
  doc: JsonObject;
  node: Json | undefined;
  pointer: string;
}

export interface DiffResult {
  old: { title: string; version: string };
  new: { title: string; version: string };
  findings: Finding[];
}
