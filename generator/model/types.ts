// The intermediate model the emitters work from: what the bundled contract says about each operation and
// webhook, read once (read-model.ts). Schemas stay JSON Schema with `$ref`s into the bundled document.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export type ParameterLocation = 'path' | 'query' | 'header';
export type BodyMediaType = 'application/json' | 'application/x-www-form-urlencoded';

export interface ParameterModel {
  /** As written in the contract. Header parameters are matched case-insensitively. */
  name: string;
  in: ParameterLocation;
  required: boolean;
  schema: Json;
  description: string;
}

export interface BodyModel {
  required: boolean;
  /** JSON first; the same schema describes every media type (decision `form-encoding-coercion`). */
  mediaTypes: BodyMediaType[];
  schema: Json;
}

export interface ResponseModel {
  status: number;
  description: string;
  /** JSON body schema; undefined when the response has no body. */
  schema?: Json;
  /** For error responses: the `error_code` values documented for this status. */
  errorCodes: string[];
  /** The names of the headers the response declares. */
  headers: string[];
  /** The same headers with what a client needs to read them. */
  headerFields: ResponseHeaderModel[];
}

export interface ResponseHeaderModel {
  /** As the contract writes it (`Retry-After`). */
  name: string;
  required: boolean;
  /** Its schema is an integer or a number: the client reads the text as one. */
  numeric: boolean;
  /** Its schema, references followed at the top; undefined when it declares none. */
  schema?: Json;
}

/** `x-rate-limit` on an operation: its group of the document's `x-rate-limits`, with that group's limit. */
export interface RateLimitModel {
  group: string;
  /** Requests a key may make in one window. */
  limit: number;
  windowSeconds: number;
}

/**
 * A request body field that a rule compares with the current time. Such a value in an example is written
 * against the document's `x-examples-reference-time`, so a client sends it moved to its own time.
 */
export interface TimeBoundField {
  /** Dotted path in the request body (`expiration_date`, `properties.card_expiry`). */
  field: string;
  /**
   * A value before the current time is refused (an `x-error-triggers` entry `past_timestamp`); otherwise the
   * side of the current time it lies on decides what happens (a state machine's time trigger names it).
   */
  pastRefused: boolean;
}

export interface ErrorAnswer {
  status: number;
  error_code: string;
}

export interface OperationModel {
  operationId: string;
  method: HttpMethod;
  /** Path template as in the contract, e.g. `/callback_virtual_account_payments/payment_id={payment_id}`. */
  path: string;
  tag: string;
  summary: string;
  parameters: ParameterModel[];
  body?: BodyModel;
  responses: ResponseModel[];
  /** `x-validation-error`: the answer to a schema violation without a code of its own. */
  validationError?: ErrorAnswer;
  /** `x-malformed-body-error`: the answer to a body that does not parse. */
  malformedBodyError?: ErrorAnswer;
  /** `x-error-triggers`, keyed by error code. */
  errorTriggers: Record<string, JsonObject>;
  /** `x-test-mode`, if any. */
  testMode?: JsonObject;
  /** `x-rate-limit`, if any, resolved against the root's `x-rate-limits`. */
  rateLimit?: RateLimitModel;
  /** The body fields its rules and the state machines compare with the current time. */
  timeBound: TimeBoundField[];
  /** JSON Pointer of the operation in the bundled document. */
  pointer: string;
}

export interface WebhookModel {
  /** The webhook's key in the contract, e.g. `ewallet.payment`. */
  name: string;
  operationId: string;
  summary: string;
  /** Header that carries the callback token (lower case). */
  tokenHeader: string;
  bodySchema: Json;
  delivery: JsonObject;
  pointer: string;
}

export interface ApiModel {
  title: string;
  version: string;
  /** `x-examples-reference-time`: the moment the examples' times are written against (ISO 8601), if declared. */
  examplesReferenceTime?: string;
  operations: OperationModel[];
  webhooks: WebhookModel[];
  /** `components.schemas` of the bundled document, the target of every `$ref` in the model. */
  componentSchemas: JsonObject;
}
