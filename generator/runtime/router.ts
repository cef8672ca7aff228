// The generic request pipeline behind the generated `createRouter`: a fetch-standard
// `(request: Request) => Promise<Response>` (portable to Node, workers and any framework) driven by the
// generated operation table. Order: route (404/405) -> authenticate (401) -> body (413, malformed, media
// type) -> validate path, query, headers, body -> handler -> optionally validate the handler's response.
// Nothing here knows an operation: statuses and codes come from the table, which comes from the contract.
import { parseBasicAuthorization, type BasicCredentials } from './basic-auth.js';
import { createPathMatcher } from './path-matcher.js';
import {
  answerToResponse,
  nativeFromRequest,
  withNativeHandler,
  type NativeAnswer,
  type NativeHandler,
  type NativeRequest,
} from './native-request.js';
import { DEFAULT_MAX_JSON_DEPTH, findJsonLimitBreach } from './json-limits.js';
import { mediaTypeOf, parseBody, parseJson, queryValues, type BodyMediaType } from './request-body.js';
import {
  genericValidationError,
  toIssues,
  validationAnswer,
  validationErrorBody,
  type ErrorAnswer,
  type IssueLocation,
  type ValidationIssue,
} from './validation-errors.js';
import type { OperationValidators, Validator } from './validator.js';

export type { BasicCredentials } from './basic-auth.js';
export type { BodyMediaType } from './request-body.js';
export type { ErrorAnswer, ValidationIssue } from './validation-errors.js';

/** What the router needs to know about one operation; the generated `operationTable` holds one per operationId. */
export interface RouteDefinition {
  /** Upper case. */
  readonly method: string;
  readonly path: string;
  /** Declared parameter names per location; header names in lower case (matched case-insensitively). */
  readonly parameters: {
    readonly path: readonly string[];
    readonly query: readonly string[];
    readonly header: readonly string[];
  };
  readonly body?: { readonly mediaTypes: readonly BodyMediaType[]; readonly required: boolean };
  /** Every documented status with the `error_code` values documented for it (none for a success). */
  readonly responses: Readonly<Record<number, readonly string[]>>;
  /** The documented answer to missing or bad credentials (401 INVALID_API_KEY). */
  readonly unauthorizedError: ErrorAnswer;
  /** The documented answer to a failure of the service itself (500 SERVER_ERROR). */
  readonly serverError: ErrorAnswer;
  /** `x-validation-error`. */
  readonly validationError?: ErrorAnswer;
  /** `x-malformed-body-error`. */
  readonly malformedBodyError?: ErrorAnswer;
  readonly validators: OperationValidators;
}

export type RouteTable = Readonly<Record<string, RouteDefinition>>;

/** One documented response of a handler: the status, its JSON body and extra headers. */
export interface HandlerResponse<Status extends number, Body> {
  status: Status;
  body: Body;
  headers?: Record<string, string>;
}

/** Header parameters reach handlers under their lower-case names (the router reads headers case-insensitively). */
export type LowercaseKeys<T> = { [K in keyof T as K extends string ? Lowercase<K> : K]: T[K] };

export interface RequestContext<Principal> {
  /** What `authenticate` returned for this request's credentials. */
  principal: Principal;
  operationId: string;
  request: Request;
}

export interface RouterOptions<Principal> {
  /**
   * Decides who is calling. Gets the Basic credentials (null when the header is missing or malformed, RFC
   * 7617) and returns the principal handed to handlers, or null for 401 INVALID_API_KEY. Compare keys in
   * constant time.
   */
  authenticate: (
    credentials: BasicCredentials | null,
    request: Request,
  ) => Principal | null | Promise<Principal | null>;
  /** Check every handler response against its documented schema; a broken one becomes 500. On in tests and development. */
  validateResponses?: boolean;
  /** Largest accepted request body, in bytes; larger gets 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /** Deepest accepted nesting of objects and arrays in a JSON body; deeper is a validation error. Default 32. */
  maxJsonDepth?: number;
  /** Told about thrown errors and broken responses; the client only ever sees the generic 500. */
  onError?: (error: unknown, request: Request) => void;
  /**
   * Runs around every request whose caller is known, before its body is read or validated: it may answer
   * instead of the operation (not calling `next`), or change or hold back the answer `next` gives (a rate
   * limit's headers and 429, a simulated fault). What it throws is the generic 500, as a handler's is.
   */
  around?: AroundOperation<Principal>;
}

/** Who calls which operation, for `around`. */
export interface OperationCall<Principal> {
  principal: Principal;
  operationId: string;
  request: NativeRequest;
}

export type AroundOperation<Principal> = (
  call: OperationCall<Principal>,
  next: () => Promise<NativeAnswer>,
) => Promise<NativeAnswer>;

/** A handler as the generic router sees it; the generated `Handlers` type gives each one its real types. */
export type AnyHandler<Principal> = (input: never, context: RequestContext<Principal>) => unknown;

/** A handler response that does not match the contract (undocumented status, or a body breaking its schema). */
export class ResponseContractError extends Error {
  constructor(
    readonly operationId: string,
    readonly status: unknown,
    readonly issues: readonly ValidationIssue[],
  ) {
    super(
      `${operationId} answered ${String(status)}, which the contract does not allow${issues.length > 0 ? `: ${issues.map((issue) => `${issue.path || '(body)'} ${issue.message}`).join('; ')}` : ''}`,
    );
    this.name = 'ResponseContractError';
  }
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const GENERIC_MESSAGES = {
  unauthorized: 'Send your secret API key as the user name of HTTP Basic authentication, with an empty password.',
  server: "The service could not complete the request. Check the object's state before retrying.",
  malformed: 'The request body could not be parsed in its declared content type.',
};

function json(status: number, body: unknown, extraHeaders?: Record<string, string>): NativeAnswer {
  const headers: Record<string, string> = {};
  // Extra headers go through Headers, which checks and normalizes them as before (a broken one throws here,
  // inside the pipeline, and becomes the generic 500).
  if (extraHeaders) new Headers(extraHeaders).forEach((value, name) => (headers[name] = value));
  // A response the contract documents without content has no body; every other body is JSON (README,
  // "The contract's conventions"), whatever a handler's headers say.
  if (body === undefined) return { status, headers };
  headers['content-type'] = 'application/json';
  return { status, headers, body: JSON.stringify(body) };
}

function errorResponse(answer: ErrorAnswer, message: string, headers?: Record<string, string>): NativeAnswer {
  return json(answer.status, { error_code: answer.error_code, message }, headers);
}

/**
 * The 401 answer. Its one extra header is the router's own, already valid and in lower case, so it is set
 * directly instead of going through Headers as a handler's headers do (a Headers object per refused request
 * was most of the 401 path's allocation).
 */
function unauthorized(route: RouteDefinition): NativeAnswer {
  const body = JSON.stringify({
    error_code: route.unauthorizedError.error_code,
    message: GENERIC_MESSAGES.unauthorized,
  });
  return {
    status: route.unauthorizedError.status,
    headers: { 'www-authenticate': 'Basic realm="payments"', 'content-type': 'application/json' },
    body,
  };
}

function validationFailure(route: RouteDefinition, issues: ValidationIssue[]): NativeAnswer {
  const answer = validationAnswer(issues, route);
  return json(answer.status, validationErrorBody(answer, issues));
}

type Parsed = { ok: true; value: unknown; mediaType?: BodyMediaType } | { ok: false; response: NativeAnswer };

/** The answer to a body that cannot be parsed in its declared content type. */
function malformed(route: RouteDefinition): Parsed {
  return {
    ok: false,
    response: errorResponse(route.malformedBodyError ?? genericValidationError(route), GENERIC_MESSAGES.malformed),
  };
}

interface BodyLimits {
  maxBytes: number;
  maxJsonDepth: number;
}

/** Reads and parses the body the operation takes; `value` is undefined when there is none. */
async function readBody(
  route: RouteDefinition,
  request: NativeRequest,
  { maxBytes, maxJsonDepth }: BodyLimits,
): Promise<Parsed> {
  // Without a body in the contract the body is ignored (the caller does not read it), except that an operation
  // documenting a malformed-body error answers it for a non-empty body that is not JSON (decision
  // `get-disbursement-invalid-json`).
  const text = await request.readBody(maxBytes);
  if (text.kind === 'too-large')
    return {
      ok: false,
      response: json(413, {
        error_code: 'REQUEST_ENTITY_TOO_LARGE',
        message: `The request body is larger than ${maxBytes} bytes.`,
      }),
    };
  if (text.kind === 'not-utf8') return malformed(route);
  if (text.text.trim() === '') {
    if (route.body?.required)
      return {
        ok: false,
        response: validationFailure(route, [
          { location: 'body', path: '', message: 'must have a request body', keyword: 'required' },
        ]),
      };
    return { ok: true, value: undefined };
  }
  if (!route.body) return parseJson(text.text).ok ? { ok: true, value: undefined } : malformed(route);
  // An unsupported media type is a broken rule of the request, answered like any other (the operation's
  // validation error), not an undocumented 415: every answer stays one the contract documents.
  const mediaType = route.body.mediaTypes.find((type) => type === mediaTypeOf(request.header('content-type')));
  if (!mediaType) {
    const message = `must be one of: ${route.body.mediaTypes.join(', ')}`;
    return {
      ok: false,
      response: validationFailure(route, [{ location: 'header', path: '/content-type', message, keyword: 'enum' }]),
    };
  }
  const parsed = parseBody(text.text, mediaType);
  if (!parsed.ok) return malformed(route);
  // Before the validators and handlers, which walk the body recursively and store it as JSON again. A form
  // is looked at too: its values are text, and `%00` decodes to U+0000 as `\u0000` does in JSON.
  const breach = findJsonLimitBreach(parsed.value, maxJsonDepth);
  if (breach) return { ok: false, response: validationFailure(route, [{ location: 'body', ...breach }]) };
  return { ok: true, value: parsed.value, mediaType };
}

/** Runs one validator; coercing validators convert `data` in place, so the handler gets typed values. */
function check(location: IssueLocation, validator: Validator | undefined, data: unknown): ValidationIssue[] {
  return !validator || validator(data) ? [] : toIssues(location, validator.errors);
}

/** `check` adding to `issues`: a valid part (the common case) allocates nothing. */
function collectIssues(
  issues: ValidationIssue[],
  location: IssueLocation,
  validator: Validator | undefined,
  data: unknown,
): void {
  if (!validator || validator(data)) return;
  for (const issue of toIssues(location, validator.errors)) issues.push(issue);
}

/** What `readBody` gives for an operation that takes no body (the common GET), without a promise. */
const NO_BODY: Parsed = { ok: true, value: undefined };

function headerValues(request: NativeRequest, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = request.header(name);
    if (value !== null) values[name] = value;
  }
  return values;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function isHandlerResponse(value: unknown): value is HandlerResponse<number, unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { status?: unknown }).status === 'number';
}

/** The handler's answer, or the contract violation it commits. */
function toResponse(
  operationId: string,
  route: RouteDefinition,
  result: unknown,
  validate: boolean,
): NativeAnswer | ResponseContractError {
  if (!isHandlerResponse(result)) return new ResponseContractError(operationId, undefined, []);
  if (!(result.status in route.responses)) return new ResponseContractError(operationId, result.status, []);
  if (validate) {
    const issues = check('body', route.validators.responses[result.status], result.body);
    if (issues.length > 0) return new ResponseContractError(operationId, result.status, issues);
  }
  return json(result.status, result.body, result.headers);
}

/**
 * What a handler gets besides its input; the Request is made only if the handler reads it. A class, not an
 * object literal with a getter: V8 keeps such a literal in dictionary mode (`%HasFastProperties` is false),
 * and with one made per request every young-generation collection promoted about 1.2 MB of request objects
 * to the old generation and paused 4 to 20 ms; with the class nothing is promoted and pauses are about 1 ms
 * (`npm run bench:server`, --trace-gc-nvp).
 */
class HandlerContext<Principal> implements RequestContext<Principal> {
  #request: Request | undefined;
  readonly #native: NativeRequest;

  constructor(
    readonly principal: Principal,
    readonly operationId: string,
    native: NativeRequest,
  ) {
    this.#native = native;
  }

  get request(): Request {
    return (this.#request ??= this.#native.toRequest());
  }
}

/**
 * The router over a table of operations. `handlers` has one function per operationId of the table; the
 * generated `createRouter` types each one with its operation's input and documented responses. The result
 * is the fetch-standard handler; it also carries the same router's native entry (native-request.ts), which
 * the Node listener uses.
 */
export function createRouter<Principal, Table extends RouteTable>(
  table: Table,
  handlers: { readonly [K in keyof Table]: AnyHandler<Principal> },
  options: RouterOptions<Principal>,
): (request: Request) => Promise<Response> {
  // Object.entries forgets the key type; these are exactly the table's own keys.
  const routes = Object.entries(table) as [keyof Table & string, RouteDefinition][];
  const match = createPathMatcher(
    routes.map(([operationId, route]) => ({
      method: route.method,
      path: route.path,
      value: { operationId, route, queryNames: new Set(route.parameters.query) },
    })),
  );
  const bodyLimits: BodyLimits = {
    maxBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
    maxJsonDepth: options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH,
  };
  const validateResponses = options.validateResponses === true;
  const report = (error: unknown, request: NativeRequest): void => {
    if (!options.onError) return;
    try {
      options.onError(error, request.toRequest());
    } catch {
      // A failing logger must not turn an answered request into a failed one.
    }
  };

  /** One request of a matched operation; whatever it throws becomes the generic 500. */
  async function handle(
    request: NativeRequest,
    operationId: keyof Table & string,
    route: RouteDefinition,
    queryNames: ReadonlySet<string>,
    pathParams: Record<string, string>,
  ): Promise<NativeAnswer> {
    try {
      const credentials = parseBasicAuthorization(request.header('authorization'));
      // The Request is made only for an `authenticate` that can read it (one declaring exactly one parameter cannot).
      const authenticated =
        options.authenticate.length === 1
          ? options.authenticate(credentials, undefined as never)
          : options.authenticate(credentials, request.toRequest());
      // Awaited only when it is a promise: every await is a turn of the microtask queue, on every request.
      const principal = authenticated instanceof Promise ? await authenticated : authenticated;
      if (principal === null) return unauthorized(route);
      if (options.around)
        return await options.around({ principal, operationId, request }, () =>
          operate(request, operationId, route, queryNames, pathParams, principal),
        );
      // Never rejects (it answers the generic 500 itself): returned as it is, without a turn of its own.
      return operate(request, operationId, route, queryNames, pathParams, principal);
    } catch (error) {
      report(error, request);
      return errorResponse(route.serverError, GENERIC_MESSAGES.server);
    }
  }

  /** The operation itself, for a known caller: body, validation, handler, and the answer's check. */
  async function operate(
    request: NativeRequest,
    operationId: keyof Table & string,
    route: RouteDefinition,
    queryNames: ReadonlySet<string>,
    pathParams: Record<string, string>,
    principal: Principal,
  ): Promise<NativeAnswer> {
    try {
      const body = route.body || route.malformedBodyError ? await readBody(route, request, bodyLimits) : NO_BODY;
      if (!body.ok) return body.response;

      const input: Record<string, unknown> = {};
      if (route.parameters.path.length > 0) input.path = pathParams;
      if (queryNames.size > 0) input.query = queryValues(request.search, queryNames);
      if (route.parameters.header.length > 0) input.header = headerValues(request, route.parameters.header);
      if (route.body) input.body = body.value;
      const { validators } = route;
      const issues: ValidationIssue[] = [];
      collectIssues(issues, 'path', validators.path, input.path);
      collectIssues(issues, 'query', validators.query, input.query);
      collectIssues(issues, 'header', validators.header, input.header);
      if (body.value !== undefined)
        collectIssues(
          issues,
          'body',
          body.mediaType === 'application/x-www-form-urlencoded' ? validators.form : validators.body,
          body.value,
        );
      if (issues.length > 0) return validationFailure(route, issues);

      const handler: AnyHandler<Principal> = handlers[operationId];
      // `input` was just validated against the schemas the handler's input type was generated from.
      const returned = handler(input as never, new HandlerContext(principal, operationId, request));
      // Awaited only when it is a promise or another thenable (most handlers of a trivial read answer at once).
      const result = isThenable(returned) ? await returned : returned;
      const response = toResponse(operationId, route, result, validateResponses);
      if (!(response instanceof ResponseContractError)) return response;
      report(response, request);
      return errorResponse(route.serverError, GENERIC_MESSAGES.server);
    } catch (error) {
      report(error, request);
      return errorResponse(route.serverError, GENERIC_MESSAGES.server);
    }
  }

  // Not itself async: an async function around `handle` would cost every request another promise and turn.
  const native: NativeHandler = (request) => {
    const found = match(request.method.toUpperCase(), request.pathname);
    if (found.kind === 'not-found')
      return Promise.resolve(json(404, { error_code: 'NOT_FOUND', message: 'No operation has this path.' }));
    if (found.kind === 'method-not-allowed') {
      return Promise.resolve(
        json(
          405,
          { error_code: 'METHOD_NOT_ALLOWED', message: `This path accepts ${found.allow.join(', ')}.` },
          { allow: found.allow.join(', ') },
        ),
      );
    }
    const { operationId, route, queryNames } = found.value;
    return handle(request, operationId, route, queryNames, found.params);
  };

  return withNativeHandler(
    async (request: Request) => answerToResponse(await native(nativeFromRequest(request))),
    native,
  );
}
