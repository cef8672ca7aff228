// Before any check: is this the contract's API, and does it accept the key? A wrong base URL (the docs, a
// proxy's error page) or a refused key would otherwise fail every check and bury the one thing wrong under
// a hundred findings. Everything sent and expected comes from the contract: its first GET that needs no
// path parameter, asked once without a key (it must give a documented answer, the 401 error, of the
// contract's shape) and once with it (a documented answer with a valid JSON body, not a refusal).
import type { OperationModel } from '@payments-contract/contract/model/types';
import type { Contract } from './contract.js';
import { buildRequest } from './data/requests.js';
import { createHttpClient, type Exchange, type HttpClient } from './http.js';
import type { RunOptions } from './types.js';

export type PreflightProblem =
  /** No HTTP answer at all. */
  | { kind: 'unreachable'; message: string }
  /** The key was refused: the run could only report that on every operation. */
  | { kind: 'refused'; message: string }
  /** Something answers, but not as the contract's API does. */
  | { kind: 'not_the_api'; message: string };

/** Statuses that mean the credentials were refused (RFC 9110): unauthenticated, or not allowed. */
const REFUSALS = [401, 403];

/** The operation the preflight asks: the contract's first GET that needs no path parameter. */
export function preflightOperation(contract: Contract): OperationModel | undefined {
  return contract.model.operations.find(
    (operation) => operation.method === 'get' && !operation.parameters.some((parameter) => parameter.in === 'path'),
  );
}

const errorCodeOf = (exchange: Exchange): string | undefined => {
  const code = (exchange.json as { error_code?: unknown } | undefined)?.error_code;
  return typeof code === 'string' ? code : undefined;
};

/** What the answer is, in a few words a person recognises ("404 text/html", "401 INVALID_API_KEY"). */
function described(exchange: Exchange): string {
  const code = errorCodeOf(exchange);
  if (code) return `${exchange.status} ${code}`;
  const type = (exchange.headers['content-type'] ?? '').split(';')[0]?.trim();
  return `${exchange.status} ${type || 'without a content type'}${/html/i.test(type ?? '') ? ' (a web page)' : ''}`;
}

/** Why an answer is not one the contract documents for the operation, or nothing when it is. */
function undocumented(contract: Contract, operation: OperationModel, exchange: Exchange): string | undefined {
  const response = contract.response(operation, exchange.status);
  if (!response)
    return `a status the contract does not document for ${operation.operationId} (it documents ${operation.responses.map((r) => r.status).join(', ')})`;
  if (response.schema === undefined) return undefined;
  if (exchange.json === undefined) return `a body that is not JSON, where the contract documents a JSON body`;
  const [error] = contract.validate(response.schema, exchange.json);
  return error
    ? `a body that is not the contract's ${exchange.status} answer (${error.instancePath || '(body)'} ${error.message ?? error.keyword})`
    : undefined;
}

function notTheApi(
  contract: Contract,
  baseUrl: string,
  what: string,
  exchange: Exchange,
  why: string,
): PreflightProblem {
  return {
    kind: 'not_the_api',
    message: `${baseUrl} does not answer as the ${contract.model.title} does: ${what} answered ${described(exchange)}, ${why}. Check that --base-url is the API's base URL, the one its paths start from.`,
  };
}

/** Asks the target the two questions; the first problem found, or nothing when the run can start. */
export async function preflight(
  contract: Contract,
  options: Pick<RunOptions, 'baseUrl' | 'apiKey' | 'timeoutMs'>,
  client?: HttpClient,
): Promise<PreflightProblem | undefined> {
  const http =
    client ?? createHttpClient({ baseUrl: options.baseUrl, apiKey: options.apiKey, timeoutMs: options.timeoutMs });
  const operation = preflightOperation(contract);
  const request = operation ? buildRequest(contract, operation) : { method: 'GET', path: '/' };
  const anonymous = await http.send({ ...request, auth: 'none' });
  if (anonymous.status === 0) {
    return {
      kind: 'unreachable',
      message: `the target does not answer (${anonymous.request.method} ${anonymous.request.url}: ${anonymous.failure?.message ?? 'no answer'}). Check --base-url and that the service is running.`,
    };
  }
  // A contract without such an operation leaves nothing to ask: the checks will tell.
  if (!operation) return undefined;
  const line = `${request.method.toUpperCase()} ${anonymous.request.url} (${operation.operationId})`;
  const anonymousProblem = undocumented(contract, operation, anonymous);
  if (anonymousProblem)
    return notTheApi(contract, options.baseUrl, `${line} without a key`, anonymous, anonymousProblem);

  const keyed = await http.send({ ...request, auth: 'valid' });
  if (keyed.status === 0)
    return {
      kind: 'unreachable',
      message: `the target stopped answering (${line} with the key: ${keyed.failure?.message ?? 'no answer'}).`,
    };
  if (REFUSALS.includes(keyed.status) && errorCodeOf(keyed) !== undefined) {
    return {
      kind: 'refused',
      message: `the target refused the API key: ${described(keyed)} (${line}). Check PAYMENTS_API_KEY (or --api-key): a key of this target, in test mode.`,
    };
  }
  const keyedProblem = undocumented(contract, operation, keyed);
  return keyedProblem ? notTheApi(contract, options.baseUrl, `${line} with the key`, keyed, keyedProblem) : undefined;
}
