// Judges raw answers against the contract: never a 5xx, always a JSON body (errors as `{ error_code,
// message }`), a status the operation documents or one answered before any operation is reached, a code
// documented for that status, no success without a valid key. Counts every verdict, so each test prints its
// figures and asserts the zero counts.
import { isObject } from '@payments-contract/contract/model';
import type { OperationModel } from '@payments-contract/contract/model/types';
import { type Contract } from '@payments-contract/conformance/testing';
import { hostRefusals, routerLevelAnswers } from './contract-facts.js';
import type { RawOutcome } from './raw-http.js';

/** What a case's answer is judged against. */
export interface Expectation {
  /** The operation the request reaches; undefined when its path or method may reach another one, or none. */
  operation?: OperationModel;
  /** The request carries a valid key. */
  authenticated: boolean;
  /** With a valid key, the contract prescribes this refusal (the operation's validation error, say). */
  refusal?: { status: number; errorCode: string };
  /** A HEAD request: its answers have no body. */
  head?: boolean;
}

export const VERDICTS = [
  'ok',
  '5xx',
  'non-json',
  'dropped',
  'hang',
  'undocumented-status',
  'undocumented-code',
  'unauthenticated-success',
  'not-refused-as-documented',
  'schema-internals-in-message',
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Validator wording that says nothing to a client (issue 10, class 9). */
const SCHEMA_INTERNALS = /boolean schema is false/;

export interface Judged {
  verdict: Verdict;
  status: number | 'dropped' | 'hang';
  detail: string;
}

const excerpt = (body: Buffer): string => {
  const text = body.toString('utf8').replace(/\s+/g, ' ');
  return text.length > 160 ? `${text.slice(0, 160)}…` : text;
};

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export interface Judge {
  (outcome: RawOutcome, expectation: Expectation): Judged;
}

/** A judge for the answers of the services described by `contracts` (the service and the control API). */
export function createJudge(contracts: readonly Contract[]): Judge {
  const routerLevel = routerLevelAnswers(contracts);
  // A request naming a host the sandbox does not answer to (two Host headers, say) is refused before any
  // operation is found, as decision sandbox-host-names documents: an answer of the router like the others.
  const { foreign } = hostRefusals(contracts);
  if (!routerLevel.has(foreign.status)) routerLevel.set(foreign.status, foreign.code);
  // A request whose path or method is bent may reach any operation: any status and code one documents.
  const anyOperation = new Map<number, Set<string>>();
  for (const operation of contracts.flatMap((contract) => contract.model.operations)) {
    for (const response of operation.responses)
      anyOperation.set(
        response.status,
        new Set([...(anyOperation.get(response.status) ?? []), ...response.errorCodes]),
      );
  }
  /** Whether `code` is documented at `status` (a status documented without codes takes any). */
  const documented = (operation: OperationModel | undefined, status: number, code: string): boolean => {
    const codes = operation
      ? operation.responses.find((response) => response.status === status)?.errorCodes
      : [...(anyOperation.get(status) ?? [])];
    return codes !== undefined && (codes.length === 0 || codes.includes(code));
  };
  return (outcome, expectation) => {
    if (outcome.kind === 'dropped') return { verdict: 'dropped', status: 'dropped', detail: outcome.detail };
    if (outcome.kind === 'hang')
      return { verdict: 'hang', status: 'hang', detail: `no complete answer within ${Math.round(outcome.ms)} ms` };
    const { status, body } = outcome;
    const said = `${status} ${excerpt(body)}`;
    const judged = (verdict: Verdict, why = ''): Judged => ({
      verdict,
      status,
      detail: why ? `${why}: ${said}` : said,
    });
    if (status >= 500) return judged('5xx');
    const json = parseJson(body);
    const headOnly = expectation.head === true || (body.length === 0 && (status === 204 || status === 304));
    if (!headOnly && json === undefined) return judged('non-json');
    const code = isObject(json as never) ? (json as Record<string, unknown>).error_code : undefined;
    if (status >= 400 && !headOnly) {
      const message = (json as Record<string, unknown> | undefined)?.message;
      if (typeof code !== 'string' || typeof message !== 'string')
        return judged('non-json', 'an error without a string error_code and message');
      if (SCHEMA_INTERNALS.test(body.toString('utf8'))) return judged('schema-internals-in-message');
    }
    if (status < 400 && !expectation.authenticated) return judged('unauthenticated-success');
    const { refusal } = expectation;
    if (refusal && expectation.authenticated && (status !== refusal.status || code !== refusal.errorCode))
      return judged('not-refused-as-documented', `expected ${refusal.status} ${refusal.errorCode}`);
    const { operation } = expectation;
    const where = operation ? `for ${operation.operationId} ${status}` : `by any operation for ${status}`;
    if (routerLevel.has(status))
      return typeof code !== 'string' || code === routerLevel.get(status) || documented(operation, status, code)
        ? judged('ok')
        : judged('undocumented-code', `${code} is not documented ${where}`);
    const statuses = operation ? operation.responses.map((r) => r.status) : [...anyOperation.keys()];
    if (!statuses.includes(status)) return judged('undocumented-status', `not documented ${where}`);
    if (status >= 400 && typeof code === 'string' && !documented(operation, status, code))
      return judged('undocumented-code', `${code} is not documented ${where}`);
    return judged('ok');
  };
}

/** Counts of verdicts and statuses, with the first few examples of each failing verdict. */
export class Tally {
  readonly verdicts = new Map<Verdict, number>();
  readonly statuses = new Map<string, number>();
  readonly examples = new Map<Verdict, string[]>();
  total = 0;

  add(caseName: string, judged: Judged): void {
    this.total++;
    this.verdicts.set(judged.verdict, (this.verdicts.get(judged.verdict) ?? 0) + 1);
    const status = String(judged.status);
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (judged.verdict === 'ok') return;
    const examples = this.examples.get(judged.verdict) ?? [];
    if (examples.length < 5) examples.push(`${caseName} -> ${judged.detail}`);
    this.examples.set(judged.verdict, examples);
  }

  count(verdict: Verdict): number {
    return this.verdicts.get(verdict) ?? 0;
  }

  /** Every verdict but `ok`, with its count (zeros included, so a summary shows what was checked). */
  failures(): Record<string, number> {
    return Object.fromEntries(
      VERDICTS.filter((verdict) => verdict !== 'ok').map((verdict) => [verdict, this.count(verdict)]),
    );
  }

  statusLine(): string {
    return [...this.statuses]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
  }

  exampleLines(): string[] {
    return [...this.examples].flatMap(([verdict, lines]) => lines.map((line) => `  ${verdict}: ${line}`));
  }
}
