// Test support: the in-test target (target.ts) made to check keys and requests as the contract says,
// so that checks 2 and 3 pass against it, with switches that break it in one way each. Invalid requests get
// the answer `expectedAnswer` computes and the contract's example for that code: this target shows the
// checks raise nothing against a conforming implementation; the faults show what they catch.
import type { IncomingMessage } from 'node:http';
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import type { Contract } from '../contract.js';
import { fromWire } from '../data/negative-requests.js';
import { brokenTrigger } from '../data/trigger-requests.js';
import { expectedAnswer } from '../data/violations.js';
import { responseExamples } from '../mock/examples.js';
import { runConformance } from '../run.js';
import type { CheckName, CheckResult, Profile, RunSummary } from '../types.js';
import type { Override } from './target.js';

export interface RequestFaults {
  /** This operation answers 2xx whatever the Authorization header says. */
  ignoresAuth?: string;
  /** Every well-formed Basic key is accepted (the target cannot tell keys apart, like a stateless mock). */
  acceptsUnknownKeys?: boolean;
  /** This operation answers 500 to an invalid request. */
  serverErrorOnInvalid?: string;
  /** This operation answers an invalid request with an error_code it does not document. */
  undocumentedCode?: string;
  /** This operation answers an invalid request with a plain-text body. */
  nonJsonError?: string;
  /** Invalid requests get the first example of the right status, whatever the rule (as Prism does). */
  firstExample?: boolean;
}

type Answer = { status: number; contentType?: string; body: string };

function wellFormedBasic(header: string | undefined): boolean {
  const match = /^Basic ([A-Za-z0-9+/]+=*)$/.exec(header ?? '');
  return (
    match !== null &&
    Buffer.from(match[1] as string, 'base64')
      .toString('utf8')
      .includes(':')
  );
}

type Verdict =
  | { kind: 'valid' }
  | { kind: 'malformed' }
  | { kind: 'invalid'; errors: ErrorObject[] }
  | { kind: 'triggered'; status: number; code: string };

function judgeRequest(
  contract: Contract,
  operation: OperationModel,
  request: IncomingMessage,
  body: string,
  pathParams: Record<string, string>,
): Verdict {
  const url = new URL(request.url ?? '/', 'http://target.local');
  const errors: ErrorObject[] = [];
  let missing = false;
  for (const parameter of operation.parameters) {
    const header = request.headers[parameter.name.toLowerCase()];
    const raw =
      parameter.in === 'path'
        ? pathParams[parameter.name]
        : parameter.in === 'query'
          ? (url.searchParams.get(parameter.name) ?? undefined)
          : Array.isArray(header)
            ? header[0]
            : header;
    if (raw === undefined) missing ||= parameter.required;
    else errors.push(...contract.validate(parameter.schema, fromWire(contract, parameter.schema, raw)));
  }
  if (operation.body && body !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return { kind: 'malformed' };
    }
    errors.push(...contract.validate(operation.body.schema, parsed));
    // A body valid by its schema may still break a request-data rule of x-error-triggers (a past timestamp...).
    const triggered = !missing && errors.length === 0 ? brokenTrigger(contract, operation, parsed as Json) : undefined;
    if (triggered) return { kind: 'triggered', ...triggered };
  }
  // A missing required parameter breaks no schema keyword: invalid with no errors to map to a code.
  return missing || errors.length > 0 ? { kind: 'invalid', errors } : { kind: 'valid' };
}

function errorBody(
  contract: Contract,
  operation: OperationModel,
  status: number,
  code: string,
  faults: RequestFaults,
): string {
  const examples = responseExamples(contract, operation, status);
  const chosen = faults.firstExample ? examples[0] : examples.find((e) => isObject(e) && e.error_code === code);
  return JSON.stringify(chosen ?? { error_code: code, message: `${code} (no example in the contract)` });
}

function invalidAnswer(contract: Contract, operation: OperationModel, verdict: Verdict, faults: RequestFaults): Answer {
  const id = operation.operationId;
  if (faults.serverErrorOnInvalid === id)
    return {
      status: 500,
      body: JSON.stringify(
        responseExamples(contract, operation, 500)[0] ?? { error_code: 'SERVER_ERROR', message: 'boom' },
      ),
    };
  const malformed = operation.malformedBodyError;
  const expected =
    verdict.kind === 'invalid'
      ? expectedAnswer(operation, verdict.errors)
      : verdict.kind === 'triggered'
        ? { status: verdict.status, errorCode: verdict.code }
        : malformed && { status: malformed.status, errorCode: malformed.error_code };
  const status = expected?.status ?? 400;
  const code = expected?.errorCode ?? 'UNDOCUMENTED_INVALID_REQUEST';
  if (faults.undocumentedCode === id)
    return {
      status,
      body: JSON.stringify({
        error_code: 'CONFORMANCE_UNDOCUMENTED_CODE',
        message: 'A code the contract does not document.',
      }),
    };
  if (faults.nonJsonError === id) return { status, contentType: 'text/plain', body: 'Bad Request' };
  return { status, body: errorBody(contract, operation, status, code, faults) };
}

export function validatingOverride(contract: Contract, faults: RequestFaults = {}): Override {
  const match = createPathMatcher(
    contract.model.operations.map((operation) => ({
      method: operation.method.toUpperCase(),
      path: operation.path,
      value: operation,
    })),
  );
  return ({ operation, authorized, body, request }) => {
    const id = operation.operationId;
    const allowed =
      authorized ||
      faults.ignoresAuth === id ||
      (faults.acceptsUnknownKeys === true && wellFormedBasic(request.headers.authorization));
    if (!allowed) return undefined;
    const found = match(
      (request.method ?? 'GET').toUpperCase(),
      new URL(request.url ?? '/', 'http://target.local').pathname,
    );
    const verdict = judgeRequest(contract, operation, request, body, found.kind === 'found' ? found.params : {});
    if (verdict.kind === 'valid') {
      // Valid: the default answer is the 2xx example, which the default path only gives a valid key.
      if (authorized) return undefined;
      const status = Math.min(...operation.responses.filter((r) => r.status < 300).map((r) => r.status));
      return { status, body: JSON.stringify(responseExamples(contract, operation, status)[0] ?? {}) };
    }
    return invalidAnswer(contract, operation, verdict, faults);
  };
}

export const VALID_KEY = 'sk_test_conformance_valid_key';

/** Runs the suite as a library against `baseUrl`, with only the given checks/subjects. */
export async function runSelected(
  baseUrl: string,
  only: string[],
  profile: Profile = 'stateless',
): Promise<RunSummary> {
  return runConformance({ baseUrl, apiKey: VALID_KEY, profile, only, timeoutMs: 5_000, concurrency: 8, strict: false });
}

/** The failed results, as `check:subject`. */
export function failed(summary: RunSummary): string[] {
  return summary.results.filter((r) => r.outcome === 'failed').map((r) => `${r.check}:${r.subject}`);
}

export function resultOf(summary: RunSummary, check: CheckName, subject: string): CheckResult {
  const result = summary.results.find((r) => r.check === check && r.subject === subject);
  if (!result) throw new Error(`no ${check} result for ${subject}`);
  return result;
}
