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
  /** `x-retryable`: the codes among them whose answer means nothing was done, so the same request may be sent again. */
  retryable: string[];
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
  /** What one count belongs to (`[merchant, mode]`: each API key its own); undefined when the group does not say. */
  scope?: KeyScope;
}

/** The dimensions that give a key (an idempotency key, a rate-limit count) its own space. */
export type KeyScopeDimension = 'merchant' | 'mode' | 'operation';
export type KeyScope = KeyScopeDimension[];

/** `x-idempotency` on an operation: how its idempotency key works. */
export interface IdempotencyModel {
  /** The header parameter that carries the key, as the contract names it. */
  header: string;
  scope: KeyScope;
  lifetimeSeconds: number;
  /** The key is compared as sent: every character, letter case included. */
  comparison: 'exact';
  /** Refusals that use up the key as a success does; every other refusal leaves it unused. */
  rememberedRefusals: string[];
  /** `recovery`: how a client whose answer was lost finds what the key's request did. */
  recovery?: IdempotencyRecovery;
}

/**
 * `x-idempotency.recovery`: the lookup that finds what a request with the key created, its query filled from
 * the request body's fields; the match whose fields equal the request's is the original.
 */
export interface IdempotencyRecovery {
  operation: string;
  /** Query parameter of the lookup -> the request body field whose value it takes. */
  query: Record<string, string>;
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

/**
 * `x-timestamps` of a resource schema: when one of its date-time fields is set and moved, in the service's
 * time (decision timestamps-move). `creation`: never moves; `change`: moves forward with every accepted
 * change and nothing else; `transition`: moves when the object enters one of `states`.
 */
export interface TimestampRule {
  field: string;
  set: TimestampSet;
  /** For `transition`: the states whose entry sets it. */
  states: string[];
  /** For `change`: null from creation until the first change. */
  nullUntilChange: boolean;
  /** The decision that states the rule, when one does. */
  decision?: string;
}

/** `x-timestamps` `set`: what sets and moves a date-time field. */
export type TimestampSet = 'creation' | 'change' | 'transition';

/** `x-matches` `order`. */
export type MatchOrderKind = 'newest_first' | 'oldest_first';

/** `x-matches` of a list or lookup operation: the order of the objects it answers when several match. */
export interface MatchOrder {
  order: MatchOrderKind;
  decision: string;
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
  errorTriggers: Record<string, ErrorTrigger>;
  /** `x-test-mode`, if any. */
  testMode?: TestModeModel;
  /** `x-rate-limit`, if any, resolved against the root's `x-rate-limits`. */
  rateLimit?: RateLimitModel;
  /** `x-idempotency`, if any. */
  idempotency?: IdempotencyModel;
  /** The body fields its rules and the state machines compare with the current time. */
  timeBound: TimeBoundField[];
  /** `x-matches`, on an operation that lists or looks up the merchant's objects. */
  matches?: MatchOrder;
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
  /** `x-delivery` as the contract writes it. */
  delivery: DeliveryModel;
  /** What `x-delivery` says of acknowledgement and redelivery. */
  deliveryRules: WebhookDeliveryRules;
  /** `x-callback-source`: the object a callback reports and where its fields come from, when given. */
  source?: CallbackSourceModel;
  pointer: string;
}

export interface WebhookDeliveryRules {
  /** The receiver's answers that acknowledge an attempt (inclusive bounds); any other answer fails it. */
  acknowledgingStatuses: { minimum: number; maximum: number };
  /** `redelivery.only: after_failed_attempt`: an acknowledged callback is never sent again (decision callback-redelivery-after-failure). */
  redeliveryOnlyAfterFailure: boolean;
}

/** `x-callback-source` (decision callback-fields-from-object). */
export interface CallbackSourceModel {
  /** The `x-state-machines` key of the object the callback reports. */
  machine: string;
  /** Callback fields that name the object (each in `fields`). */
  identity: string[];
  /** Callback field -> the object's field it derives from. */
  fields: Record<string, CallbackFieldSource>;
}

export interface CallbackFieldSource {
  /** The object's field, as its operations answer it. */
  from: string;
  /** The object's field whose value is taken off the start of `from`'s (the payment callback's account number). */
  withoutPrefix?: string;
  decision?: string;
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
  /** `x-timestamps` of each resource schema that declares them, by the schema's title. */
  timestamps: Record<string, TimestampRule[]>;
}

// The vendor extensions' data, typed from spec/x-extensions.yaml (extension-types.test.ts holds them to it):
// kept in the contract's own spelling, one union member per kind, so a new kind fails to compile at every
// `switch` that ends in `assertNever` (read-model.ts) until it is handled there.

/** `x-error-triggers` `parameter`: where the request names the object the rule looks up. */
export type TriggerParameter = {
  in: 'path' | 'query' | 'header' | 'body';
  name: string;
};

/** What every `x-error-triggers` entry carries besides its kind. */
type TriggerCommon = {
  description: string;
  /** The request value that selects this code in test mode. */
  test_mode?: { field: string; value: string };
};

/** The object the request names does not exist (for this merchant and mode). */
export type NotFoundTrigger = TriggerCommon & {
  when: 'not_found';
  parameter: TriggerParameter;
};
/** The object the request names belongs to another merchant. */
export type OtherMerchantTrigger = TriggerCommon & {
  when: 'other_merchant';
  parameter: TriggerParameter;
};
/** An object with the same values of `fields` exists. */
export type DuplicateTrigger = TriggerCommon & {
  when: 'duplicate';
  fields: string[];
  /** A field the service assigns when left out -> the answer's field showing the value assigned. */
  answered_as?: Record<string, string>;
};
/** The object's state (of `machine`) is one of `states`. */
export type StateTrigger = TriggerCommon & {
  when: 'state';
  machine: string;
  states: string[];
};
/** A setting of the merchant refuses the request. */
export type MerchantSettingTrigger = TriggerCommon & {
  when: 'merchant_setting';
  setting: string;
};
/** The body's time `field` lies in the past. */
export type PastTimestampTrigger = TriggerCommon & {
  when: 'past_timestamp';
  field: string;
};
/** A stored field of the object refuses the request (its value is not one of `not_in`, where given). */
export type StoredFieldTrigger = TriggerCommon & {
  when: 'stored_field';
  field: string;
  not_in?: string[];
};
/** The body's `field` is not in the named catalog. */
export type NotInCatalogTrigger = TriggerCommon & {
  when: 'not_in_catalog';
  field: string;
  catalog: string;
};
/** The body's `field` contains one of `terms`. */
export type ForbiddenTermsTrigger = TriggerCommon & {
  when: 'forbidden_terms';
  field: string;
  terms: string[];
};
/** A repeated idempotency key with the same request. */
export type IdempotencyReplayTrigger = TriggerCommon & {
  when: 'idempotency_replay';
  header: string;
};
/** A repeated idempotency key with another request. */
export type IdempotencyMismatchTrigger = TriggerCommon & {
  when: 'idempotency_mismatch';
  header: string;
};
/** A balance does not cover the request (decision balance-cover-rule). */
export type InsufficientBalanceTrigger = TriggerCommon & {
  when: 'insufficient_balance';
  account_type: string;
  balance: { operation: string; field: string; query: Record<string, string> };
  /** The request body's field holding the amount. */
  amount: string;
  equal_amount: 'accepted' | 'refused';
};
/** An OTP is refused. */
export type OtpTrigger = TriggerCommon & {
  when: 'otp';
  outcome: 'invalid' | 'expired' | 'max_attempts';
};
/** The upstream (a bank, a provider) cannot be reached. */
export type UpstreamUnavailableTrigger = TriggerCommon & {
  when: 'upstream_unavailable';
};
/** A test-mode value selects the code. */
export type TestModeTrigger = TriggerCommon & {
  when: 'test_mode';
};

/** One `x-error-triggers` entry: `when` decides the rest of its shape. */
export type ErrorTrigger =
  | NotFoundTrigger
  | OtherMerchantTrigger
  | DuplicateTrigger
  | StateTrigger
  | MerchantSettingTrigger
  | PastTimestampTrigger
  | StoredFieldTrigger
  | NotInCatalogTrigger
  | ForbiddenTermsTrigger
  | IdempotencyReplayTrigger
  | IdempotencyMismatchTrigger
  | InsufficientBalanceTrigger
  | OtpTrigger
  | UpstreamUnavailableTrigger
  | TestModeTrigger;
export type ErrorTriggerKind = ErrorTrigger['when'];
/** The trigger of one kind. */
export type ErrorTriggerOf<K extends ErrorTriggerKind> = Extract<ErrorTrigger, { when: K }>;

/** `x-test-mode` of an operation (and the control contract's `x-test-modes` entries): test-mode behaviour as data. */
export type TestModeModel = {
  description: string;
  /** The request field whose value selects an outcome. */
  field?: string;
  /** The webhook that reports the outcome. */
  callback?: string;
  outcomes?: JsonObject[];
  default_outcome?: JsonObject;
};

/** `x-delivery` `destination`: a dashboard setting, or a field of the request that created the object. */
export type DeliveryDestination =
  | { dashboard_setting: string }
  | { request_field: { operation: string; field: string } };

/** `x-delivery` of a webhook: how the service delivers it. */
export type DeliveryModel = {
  destination: DeliveryDestination;
  acknowledgement: '2xx';
  acknowledging_statuses?: { minimum: number; maximum: number; decisions: string[] };
  attempts: number;
  retry_interval_seconds: number;
  guarantee: 'at-least-once';
  redelivery?: { only: 'after_failed_attempt'; decision: string };
  ordering: 'none';
  after_final_failure: 'alert';
};

/** `x-state-machines` `when` (of a transition or a balance effect): `resource.<field>` or `payload.<field>` -> the value it must have. */
export type FieldConditions = Record<string, string | number | boolean>;

/** What sets a transition off: one of the service's operations, an event outside the API, or a time field's moment passing. */
export type TransitionTrigger =
  | { operation: string; description?: string }
  | { event: string; description?: string }
  | {
      time: string;
      /** Inclusive: the transition happens at the instant itself; exclusive: only after it. */
      boundary?: 'inclusive' | 'exclusive';
      description?: string;
    };

/** A state-machine effect that moves money: the balance `operation` reports changes by `amount` (`resource.<field>` or `payload.<field>`). */
export type BalanceEffectModel = {
  operation: string;
  field: string;
  query: Record<string, string>;
  change: 'credit' | 'debit';
  amount: string;
  when?: FieldConditions;
};

/** What a transition does besides changing the state: a callback, an error answer, money moved, an email. */
export type TransitionEffect = {
  callback?: string;
  error?: string;
  status?: number;
  balance?: BalanceEffectModel;
  email?: string[];
  description?: string;
};

export type TransitionModel = {
  /** null: the transition creates the object. */
  from: string | null;
  to: string;
  trigger: TransitionTrigger;
  /** The condition in prose, where one selects among a trigger's transitions. */
  condition?: string;
  /** The condition as data. */
  when?: FieldConditions;
  description?: string;
  effects?: TransitionEffect[];
};

/** One `x-state-machines` entry: a resource's states and the transitions between them. */
export type StateMachineModel = {
  /** The title of the resource's schema. */
  resource: string;
  /** The resource field holding the state; null when the state is implicit. */
  field: string | null;
  states: string[];
  initial: string;
  final?: string[];
  description?: string;
  transitions: TransitionModel[];
};
