// The hand-written half of the generated client (generated/client.ts): an openapi-fetch client that signs
// every request with Basic auth, form encoding for the bodies that allow it, and the conversion of
// openapi-fetch's `{ data, error, response }` into a result discriminated by `ok` and `status`. Generic
// over the `paths` and `operations` types openapi-typescript writes; it knows nothing about this contract.
import createClient, { type Client, type Middleware } from 'openapi-fetch';
import { basicAuthorization } from './basic-auth.js';
import type { CallOptions } from './resilience.js';

// ---------------------------------------------------------------------------------------------------
// Result types

/** The numbers 0 … N-1 as a union (tail-recursive, so TypeScript evaluates it up to N = 999). */
type Below<N extends number, Counted extends number[] = []> = Counted['length'] extends N
  ? Counted[number]
  : Below<N, [...Counted, Counted['length']]>;

/** Every status a fetch Response can carry. */
export type HttpStatus = Exclude<Below<600>, Below<100>>;
/** The statuses that mean success (`response.ok`). */
export type SuccessStatus = Exclude<Below<300>, Below<200>>;

type ResponsesOf<Operation> = Operation extends { responses: infer Responses } ? Responses : never;
type JsonBodyOf<DocumentedResponse> = DocumentedResponse extends { content: { 'application/json': infer Body } }
  ? Body
  : never;
/**
 * The headers the contract declares on a response, as openapi-typescript types them (a number for an integer
 * header, optional unless required), without the index signature it adds for undeclared ones.
 */
export type DeclaredHeaders<DocumentedResponse> = DocumentedResponse extends { headers: infer Headers }
  ? { readonly [Name in keyof Headers as string extends Name ? never : Name]: Headers[Name] }
  : Record<never, never>;

/** The statuses the contract documents for an operation (keys of `operations[id]['responses']`). */
export type DocumentedStatus<Operation> = Extract<keyof ResponsesOf<Operation>, number>;

/** A documented success: `data` is the response body the contract describes for `status`. */
export interface Success<Status extends number, Data, Headers = Record<never, never>> {
  readonly ok: true;
  readonly status: Status;
  readonly data: Data;
  /** The headers the contract declares for this status, read as their types (RateLimit-Remaining as a number...). */
  readonly headers: Headers;
  readonly response: Response;
  /**
   * True when the call's answer was lost and the client found the original by the contract's lookup (its
   * `response` is the lookup's): the request was carried out once, by an earlier attempt of this call.
   */
  readonly recovered?: true;
}

/**
 * A documented failure: `error` is the error body the contract describes for `status`, so its `error_code`
 * is narrowed to the codes this operation documents for that status.
 */
export interface Failure<Status extends number, ErrorBody, Headers = Record<never, never>> {
  readonly ok: false;
  readonly status: Status;
  readonly error: ErrorBody;
  /** The headers the contract declares for this status, read as their types (a 429's Retry-After in seconds...). */
  readonly headers: Headers;
  readonly response: Response;
}

/**
 * A status the contract does not document for the operation (a gateway's 502, say), or a success status
 * other than the documented one. Its `status` type excludes the documented statuses, so checking
 * `result.status === 400` still narrows to the documented 400; `error` is the body, parsed as JSON when it
 * is JSON and as text otherwise.
 */
export interface UnexpectedResponse<Documented extends number> {
  readonly ok: false;
  readonly status: Exclude<HttpStatus, Documented>;
  readonly error: unknown;
  readonly response: Response;
}

/** Everything a call can resolve to: one member per documented status, and the undocumented rest. */
export type OperationResult<Operation> =
  | {
      [Status in DocumentedStatus<Operation>]: Status extends SuccessStatus
        ? Success<Status, JsonBodyOf<ResponsesOf<Operation>[Status]>, DeclaredHeaders<ResponsesOf<Operation>[Status]>>
        : Failure<Status, JsonBodyOf<ResponsesOf<Operation>[Status]>, DeclaredHeaders<ResponsesOf<Operation>[Status]>>;
    }[DocumentedStatus<Operation>]
  | UnexpectedResponse<DocumentedStatus<Operation>>;

/**
 * Thrown when a documented status arrives without the JSON body the contract promises for it (an HTML
 * error page under a documented 500, say), or without a header it requires: returning it as the documented
 * result would lie about its type.
 */
export class MalformedResponseError extends Error {
  override readonly name = 'MalformedResponseError';

  constructor(
    readonly response: Response,
    /** The body as received: text, or what openapi-fetch made of it. */
    readonly body: unknown,
    /** What is wrong with it; by default, that it has no JSON body. */
    problem = 'the contract documents a JSON body for this status, and the response has none',
  ) {
    super(`${response.status} from ${response.url || 'the service'}: ${problem}`);
  }
}

// ---------------------------------------------------------------------------------------------------
// Turning openapi-fetch's answer into a result

/**
 * What openapi-fetch resolves to when called with `parseAs: 'text'`: a success's body as text (undefined
 * when empty), an error's body as parsed JSON or, when it is not JSON, as text.
 */
export interface FetchOutcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}

const NOT_JSON = Symbol('not JSON');

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string' || text === '') return NOT_JSON;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

/** The untyped shape every OperationResult member has; `settle` builds these. */
export type SettledResult =
  | {
      readonly ok: true;
      readonly status: number;
      readonly data: unknown;
      readonly headers: Record<string, string | number>;
      readonly response: Response;
      readonly recovered?: true;
    }
  | {
      readonly ok: false;
      readonly status: number;
      readonly error: unknown;
      readonly headers?: Record<string, string | number>;
      readonly response: Response;
    };

/** By status, the headers the contract declares: whether each is required, and whether it holds a number. */
export type DeclaredHeaderFields = Readonly<
  Record<number, Readonly<Record<string, { readonly required: boolean; readonly numeric: boolean }>>>
>;

/**
 * The declared headers of a documented response under their contract names, numbers read as numbers. A
 * required one missing, or a numeric one that is not a number, makes the response malformed: its type
 * promises them.
 */
function declaredHeaders(
  response: Response,
  fields: DeclaredHeaderFields[number] | undefined,
  body: unknown,
): Record<string, string | number> {
  const headers: Record<string, string | number> = {};
  for (const [name, { required, numeric }] of Object.entries(fields ?? {})) {
    const value = response.headers.get(name);
    if (value === null) {
      if (required)
        throw new MalformedResponseError(
          response,
          body,
          `the contract requires its ${name} header, and the response has none`,
        );
      continue;
    }
    if (!numeric) headers[name] = value;
    else if (/^\s*-?\d+(\.\d+)?\s*$/.test(value)) headers[name] = Number(value);
    else
      throw new MalformedResponseError(
        response,
        body,
        `its ${name} header is ${JSON.stringify(value)}, where the contract declares a number`,
      );
  }
  return headers;
}

/** A fetched answer as the result the contract documents for its status (or an unexpected one). */
export function classify(
  outcome: FetchOutcome,
  documented: readonly number[],
  headerFields: DeclaredHeaderFields,
): SettledResult {
  const { response } = outcome;
  const { status } = response;
  if (!documented.includes(status)) {
    const parsed = response.ok ? parseJson(outcome.data) : outcome.error;
    return { ok: false, status, error: parsed === NOT_JSON ? outcome.data : parsed, response };
  }
  if (response.ok) {
    const data = parseJson(outcome.data);
    if (data === NOT_JSON) throw new MalformedResponseError(response, outcome.data);
    return { ok: true, status, data, headers: declaredHeaders(response, headerFields[status], outcome.data), response };
  }
  // Every error body of the contract is a JSON object ({ error_code, message }); openapi-fetch hands over
  // the text when the body is not JSON.
  if (typeof outcome.error !== 'object' || outcome.error === null)
    throw new MalformedResponseError(response, outcome.error);
  return {
    ok: false,
    status,
    error: outcome.error,
    headers: declaredHeaders(response, headerFields[status], outcome.error),
    response,
  };
}

/**
 * Waits for an openapi-fetch call made with `parseAs: 'text'` and returns its typed result. `documented`
 * lists the statuses whose JSON body the contract describes for this operation (the generator writes it
 * from the contract; its type keeps it within the operation's documented statuses). Network failures reject
 * as they do in fetch.
 */
export async function settle<Operation>(
  pending: Promise<FetchOutcome>,
  documented: readonly DocumentedStatus<Operation>[],
  headerFields: DeclaredHeaderFields = {},
): Promise<OperationResult<Operation>> {
  const statuses: readonly number[] = documented;
  // The one unchecked step: `classify` has just matched the runtime status against the contract's list, which
  // is what the types of OperationResult<Operation> state; TypeScript cannot follow a runtime value into them.
  return classify(await pending, statuses, headerFields) as OperationResult<Operation>;
}

// ---------------------------------------------------------------------------------------------------
// Requests

/** How a request body is sent, where the contract allows more than JSON. */
export type BodyEncoding = 'json' | 'form';

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/**
 * Encodes a flat object as `application/x-www-form-urlencoded`. `undefined` and `null` fields are left out
 * (the contract reads `null` as "not given"); numbers and booleans are written as text, which the service
 * converts back to the schema's types. Nested values have no form encoding in the contract: they throw.
 */
export function encodeForm(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError('a form-encoded body must be an object');
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || value === null) continue;
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new TypeError(`form field ${name}: only text, numbers and booleans can be form-encoded`);
    }
    form.append(name, String(value));
  }
  return form.toString();
}

/** The openapi-fetch request options that send the body with `encoding` (JSON is openapi-fetch's default). */
export function bodyEncoding(encoding: BodyEncoding | undefined): {
  bodySerializer?: (body: unknown) => string;
  headers?: Record<string, string>;
} {
  return encoding === 'form' ? { bodySerializer: encodeForm, headers: { 'Content-Type': FORM_MEDIA_TYPE } } : {};
}

/**
 * The `Authorization` value for a secret API key, as the contract's `secretKey` scheme wants it: HTTP Basic
 * (RFC 7617) with the key as the user-id and an empty password.
 */
export function secretKeyAuthorization(secretKey: string): string {
  // Fail at set-up rather than with a 401 per request: an empty key is a missing setting, and RFC 7617
  // forbids a colon in the user-id (the server could not tell where the key ends).
  if (secretKey === '' || secretKey.includes(':'))
    throw new TypeError('the secret key must be non-empty and contain no colon');
  return basicAuthorization({ username: secretKey, password: '' });
}

/** openapi-fetch middleware that authenticates every request with the secret key. */
export function basicAuth(secretKey: string): Middleware {
  const authorization = secretKeyAuthorization(secretKey);
  return {
    onRequest: ({ request }) => {
      request.headers.set('Authorization', authorization);
      return request;
    },
  };
}

/** A client's settings; its call options (retries, timeouts, the attempt hook) are every call's defaults. */
export interface ApiClientOptions extends CallOptions {
  /** The service's base URL, e.g. `https://api.example.com`; a trailing slash is ignored. */
  baseUrl: string;
  /** The secret API key; its mode (test or live) is the mode of everything the client does. */
  secretKey: string;
  /** Sends the requests; defaults to the global fetch. Tests pass an in-process handler such as a router. */
  fetch?: (request: Request) => Promise<Response>;
}

/** An openapi-fetch client for `Paths` that signs every request with the secret key. */
export function createApiClient<Paths extends object>(options: ApiClientOptions): Client<Paths> {
  const authentication = basicAuth(options.secretKey);
  const client = createClient<Paths>({ baseUrl: options.baseUrl, ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use(authentication);
  return client;
}
