// Reads the bundled contract into the model. Everything an emitter needs to know about an operation or a
// webhook is taken here, so the emitters stay pure functions of the model.
import type {
  ApiModel,
  BodyMediaType,
  BodyModel,
  ErrorAnswer,
  ErrorTrigger,
  HttpMethod,
  IdempotencyModel,
  IdempotencyRecovery,
  Json,
  JsonObject,
  KeyScope,
  KeyScopeDimension,
  MatchOrder,
  OperationModel,
  ParameterLocation,
  ParameterModel,
  RateLimitModel,
  ResponseHeaderModel,
  TestModeModel,
  TimeBoundField,
  TimestampRule,
  ResponseModel,
  WebhookModel,
} from './types.js';
import { readCallbackSource, readDelivery, readDeliveryRules } from './callback-delivery.js';
import { readErrorTriggers } from './error-triggers.js';
import { readStateMachines } from './state-machines.js';

const METHODS: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const BODY_MEDIA_TYPES: BodyMediaType[] = ['application/json', 'application/x-www-form-urlencoded'];
const PARAMETER_LOCATIONS: ParameterLocation[] = ['path', 'query', 'header'];

export function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expectObject(value: Json | undefined, where: string): JsonObject {
  if (!isObject(value)) throw new Error(`${where}: expected an object`);
  return value;
}

function expectString(value: Json | undefined, where: string): string {
  if (typeof value !== 'string') throw new Error(`${where}: expected a string`);
  return value;
}

export function escapePointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Follows local `$ref`s (to components) until a non-reference node. */
export function dereference(doc: JsonObject, value: Json | undefined): Json | undefined {
  let current = value;
  for (let depth = 0; isObject(current) && typeof current.$ref === 'string'; depth++) {
    if (depth > 32) throw new Error(`reference cycle at ${current.$ref}`);
    const ref = current.$ref;
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<Json | undefined>(
        (node, token) => (isObject(node) ? node[token] : Array.isArray(node) ? node[Number(token)] : undefined),
        doc,
      );
  }
  return current;
}

/** The values of the named examples of an operation's JSON response with `status`, in document order. */
export function responseExampleValues(doc: JsonObject, operationPointer: string, status: number): Json[] {
  const operation = dereference(doc, { $ref: operationPointer });
  const responses = isObject(operation) ? dereference(doc, operation.responses) : undefined;
  const response = isObject(responses) ? dereference(doc, responses[String(status)]) : undefined;
  const content = isObject(response) ? dereference(doc, response.content) : undefined;
  const media = isObject(content) ? dereference(doc, content['application/json']) : undefined;
  const examples = isObject(media) ? dereference(doc, media.examples) : undefined;
  return (isObject(examples) ? Object.values(examples) : []).flatMap((example) => {
    const resolved = dereference(doc, example);
    return isObject(resolved) && resolved.value !== undefined ? [resolved.value] : [];
  });
}

/** The `error_code` enum of an error body schema, looking through `allOf` and references. */
export function errorCodesOf(doc: JsonObject, schemaRef: Json | undefined): string[] {
  const schema = dereference(doc, schemaRef);
  if (!isObject(schema)) return [];
  const properties = dereference(doc, schema.properties);
  const errorCode = isObject(properties) ? dereference(doc, properties.error_code) : undefined;
  if (isObject(errorCode) && Array.isArray(errorCode.enum)) return errorCode.enum.map(String);
  return (Array.isArray(schema.allOf) ? schema.allOf : []).flatMap((member) => errorCodesOf(doc, member));
}

function readErrorAnswer(value: Json | undefined, where: string): ErrorAnswer | undefined {
  if (value === undefined) return undefined;
  const answer = expectObject(value, where);
  return { status: Number(answer.status), error_code: expectString(answer.error_code, `${where}.error_code`) };
}

function readParameters(doc: JsonObject, pathItem: JsonObject, operation: JsonObject, where: string): ParameterModel[] {
  const all = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ];
  const byKey = new Map<string, ParameterModel>();
  for (const raw of all) {
    const parameter = expectObject(dereference(doc, raw), `${where} parameter`);
    const location = expectString(parameter.in, `${where} parameter.in`);
    if (!PARAMETER_LOCATIONS.includes(location as ParameterLocation))
      throw new Error(`${where}: parameters in ${location} are not supported`);
    const name = expectString(parameter.name, `${where} parameter.name`);
    // An operation-level parameter overrides a path-level one with the same name and location.
    byKey.set(`${location}:${name}`, {
      name,
      in: location as ParameterLocation,
      required: parameter.required === true,
      schema: parameter.schema ?? {},
      description: typeof parameter.description === 'string' ? parameter.description : '',
    });
  }
  return [...byKey.values()];
}

function readBody(doc: JsonObject, operation: JsonObject, where: string): BodyModel | undefined {
  const body = dereference(doc, operation.requestBody);
  if (!isObject(body)) return undefined;
  const content = expectObject(dereference(doc, body.content), `${where} requestBody.content`);
  const mediaTypes = BODY_MEDIA_TYPES.filter((type) => type in content);
  const unsupported = Object.keys(content).filter((type) => !BODY_MEDIA_TYPES.includes(type as BodyMediaType));
  if (unsupported.length > 0 || mediaTypes.length === 0)
    throw new Error(`${where}: unsupported request media types ${Object.keys(content).join(', ')}`);
  const first = expectObject(dereference(doc, content[mediaTypes[0] as string]), `${where} media type`);
  return { required: body.required === true, mediaTypes, schema: first.schema ?? {} };
}

function headerField(doc: JsonObject, name: string, raw: Json): ResponseHeaderModel {
  const header = dereference(doc, raw);
  const schema = isObject(header) ? dereference(doc, header.schema) : undefined;
  const type = isObject(schema) ? schema.type : undefined;
  return {
    name,
    required: isObject(header) && header.required === true,
    numeric: type === 'integer' || type === 'number',
    ...(schema === undefined ? {} : { schema }),
  };
}

function readResponses(doc: JsonObject, operation: JsonObject, where: string): ResponseModel[] {
  const responses = expectObject(dereference(doc, operation.responses), `${where} responses`);
  return Object.entries(responses)
    .filter(([status]) => /^\d{3}$/.test(status))
    .map(([status, raw]) => {
      const response = expectObject(dereference(doc, raw), `${where} response ${status}`);
      const content = dereference(doc, response.content);
      const media = isObject(content) ? dereference(doc, content['application/json']) : undefined;
      const schema = isObject(media) ? media.schema : undefined;
      const headers = dereference(doc, response.headers);
      const errorCodes = Number(status) >= 400 ? errorCodesOf(doc, schema) : [];
      return {
        status: Number(status),
        description: typeof response.description === 'string' ? response.description : '',
        ...(schema === undefined ? {} : { schema }),
        errorCodes,
        retryable: readRetryable(response['x-retryable'], errorCodes, `${where} response ${status}`),
        headers: isObject(headers) ? Object.keys(headers) : [],
        headerFields: isObject(headers)
          ? Object.entries(headers).map(([name, header]) => headerField(doc, name, header))
          : [],
      };
    })
    .sort((a, b) => a.status - b.status);
}

/** A response's `x-retryable`: codes it documents whose answer means nothing was done. */
function readRetryable(value: Json | undefined, errorCodes: string[], where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((code) => typeof code !== 'string' || !errorCodes.includes(code)))
    throw new Error(`${where} x-retryable: expected a list of the codes the response documents`);
  return value as string[];
}

/** The operation's `x-rate-limit` group with its limit; a group the root's `x-rate-limits` does not define well is the contract's error. */
function readRateLimit(doc: JsonObject, operation: JsonObject, where: string): RateLimitModel | undefined {
  const group = operation['x-rate-limit'];
  if (group === undefined) return undefined;
  const groups = doc['x-rate-limits'];
  const declared = typeof group === 'string' && isObject(groups) ? groups[group] : undefined;
  if (!isObject(declared))
    throw new Error(`${where}: x-rate-limit ${JSON.stringify(group)} is not a group of x-rate-limits`);
  const { limit, window_seconds: windowSeconds } = declared;
  if (
    typeof limit !== 'number' ||
    typeof windowSeconds !== 'number' ||
    !Number.isInteger(limit) ||
    !Number.isInteger(windowSeconds) ||
    limit < 1 ||
    windowSeconds < 1
  ) {
    throw new Error(`x-rate-limits.${String(group)} needs a whole limit and window_seconds of at least 1`);
  }
  const scope =
    declared.scope === undefined ? undefined : readKeyScope(declared.scope, `x-rate-limits.${String(group)}.scope`);
  return { group: String(group), limit, windowSeconds, ...(scope ? { scope } : {}) };
}

const KEY_SCOPE_DIMENSIONS: KeyScopeDimension[] = ['merchant', 'mode', 'operation'];

function readKeyScope(value: Json | undefined, where: string): KeyScope {
  if (!Array.isArray(value) || value.some((item) => !KEY_SCOPE_DIMENSIONS.includes(item as KeyScopeDimension)))
    throw new Error(`${where}: expected a list of ${KEY_SCOPE_DIMENSIONS.join(', ')}`);
  return [...new Set(value as KeyScopeDimension[])];
}

/** The operation's `x-idempotency`; its header must be one of the operation's header parameters. */
function readIdempotency(
  raw: Json | undefined,
  parameters: ParameterModel[],
  where: string,
): IdempotencyModel | undefined {
  if (raw === undefined) return undefined;
  const value = expectObject(raw, `${where} x-idempotency`);
  const header = expectString(value.header, `${where} x-idempotency.header`);
  if (!parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === header.toLowerCase()))
    throw new Error(`${where} x-idempotency: ${header} is not a header parameter of the operation`);
  const lifetime = value.lifetime_seconds;
  if (typeof lifetime !== 'number' || !Number.isInteger(lifetime) || lifetime < 1)
    throw new Error(`${where} x-idempotency.lifetime_seconds: expected a whole number of seconds`);
  if (value.comparison !== 'exact') throw new Error(`${where} x-idempotency.comparison: expected exact`);
  const remembered = value.remembered_refusals;
  if (!Array.isArray(remembered) || remembered.some((code) => typeof code !== 'string'))
    throw new Error(`${where} x-idempotency.remembered_refusals: expected a list of codes`);
  const recovery =
    value.recovery === undefined ? undefined : readRecovery(value.recovery, `${where} x-idempotency.recovery`);
  return {
    header,
    scope: readKeyScope(value.scope, `${where} x-idempotency.scope`),
    lifetimeSeconds: lifetime,
    comparison: 'exact',
    rememberedRefusals: remembered as string[],
    ...(recovery ? { recovery } : {}),
  };
}

/** `x-idempotency.recovery`: the lookup operation and, per query parameter, the request body field filling it. */
function readRecovery(raw: Json, where: string): IdempotencyRecovery {
  const value = expectObject(raw, where);
  const query = expectObject(value.query, `${where}.query`);
  if (Object.values(query).some((field) => typeof field !== 'string'))
    throw new Error(`${where}.query: expected body field names`);
  return { operation: expectString(value.operation, `${where}.operation`), query: query as Record<string, string> };
}

/** Whether `schema` declares the dotted `path` (through references and allOf/anyOf/oneOf). */
function declaresPath(doc: JsonObject, schema: Json | undefined, path: string[], depth = 0): boolean {
  const node = dereference(doc, schema);
  const [head, ...rest] = path;
  if (!isObject(node) || head === undefined || depth > 32) return false;
  const properties = dereference(doc, node.properties);
  const child = isObject(properties) ? properties[head] : undefined;
  if (child !== undefined && (rest.length === 0 || declaresPath(doc, child, rest, depth + 1))) return true;
  return (['allOf', 'anyOf', 'oneOf'] as const).some((key) => {
    const members = node[key];
    return Array.isArray(members) && members.some((member) => declaresPath(doc, member, path, depth + 1));
  });
}

/** The fields the state machines' time triggers name (`trigger.time`): a resource's life ends when that time passes. */
function machineTimeFields(doc: JsonObject): string[] {
  const machines = readStateMachines(doc, (value) => dereference(doc, value));
  const fields = Object.values(machines).flatMap((machine) =>
    machine.transitions.flatMap(({ trigger }) => ('time' in trigger ? [trigger.time] : [])),
  );
  return [...new Set(fields)];
}

/**
 * The operation's time-bound body fields: those a `past_timestamp` trigger refuses in the past, then those
 * a machine's time trigger names that the body declares (the same value, given here, ends a resource later).
 */
function readTimeBound(
  doc: JsonObject,
  triggers: Record<string, ErrorTrigger>,
  body: BodyModel | undefined,
  timeFields: string[],
): TimeBoundField[] {
  const refused = Object.values(triggers).flatMap((t) => (t.when === 'past_timestamp' ? [t.field] : []));
  const bounded = body
    ? timeFields.filter((field) => !refused.includes(field) && declaresPath(doc, body.schema, field.split('.')))
    : [];
  return [...new Set(refused)]
    .map((field) => ({ field, pastRefused: true }))
    .concat(bounded.map((field) => ({ field, pastRefused: false })));
}

/** `x-test-mode` (or a control contract's `x-test-modes` entry): a description, and what selects which outcome. */
export function readTestMode(raw: Json | undefined, where: string): TestModeModel | undefined {
  if (raw === undefined) return undefined;
  const mode = expectObject(raw, where);
  const { field, callback, outcomes, default_outcome: fallback } = mode;
  if (field !== undefined && typeof field !== 'string') throw new Error(`${where}.field: expected a string`);
  if (callback !== undefined && typeof callback !== 'string') throw new Error(`${where}.callback: expected a string`);
  if (outcomes !== undefined && (!Array.isArray(outcomes) || !outcomes.every(isObject)))
    throw new Error(`${where}.outcomes: expected a list of objects`);
  return {
    description: expectString(mode.description, `${where}.description`),
    ...(field === undefined ? {} : { field }),
    ...(callback === undefined ? {} : { callback }),
    ...(outcomes === undefined ? {} : { outcomes: outcomes.filter(isObject) }),
    ...(fallback === undefined ? {} : { default_outcome: expectObject(fallback, `${where}.default_outcome`) }),
  };
}

/** `x-examples-reference-time`, refused unless it is an ISO 8601 time in UTC. */
function readReferenceTime(doc: JsonObject): string | undefined {
  const value = doc['x-examples-reference-time'];
  if (value === undefined) return undefined;
  if (
    typeof value !== 'string' ||
    !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(value) ||
    Number.isNaN(Date.parse(value))
  ) {
    throw new Error(`x-examples-reference-time ${JSON.stringify(value)} is not an ISO 8601 time in UTC`);
  }
  return value;
}

/** `x-matches` of an operation, refused unless its order is one the extension defines. */
function readMatches(value: Json | undefined, where: string): MatchOrder | undefined {
  if (value === undefined) return undefined;
  const matches = expectObject(value, `${where} x-matches`);
  const order = matches.order;
  if (order !== 'newest_first' && order !== 'oldest_first')
    throw new Error(`${where} x-matches: order ${JSON.stringify(order)} is neither newest_first nor oldest_first`);
  return { order, decision: expectString(matches.decision, `${where} x-matches.decision`) };
}

/** `x-timestamps` of every component schema that has them, keyed by the schema's title (else its name). */
function readTimestamps(schemas: JsonObject): Record<string, TimestampRule[]> {
  const byKind: Record<string, TimestampRule[]> = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const declared = isObject(schema) ? schema['x-timestamps'] : undefined;
    if (declared === undefined || !isObject(schema)) continue;
    const where = `components.schemas.${name} x-timestamps`;
    byKind[typeof schema.title === 'string' ? schema.title : name] = Object.entries(expectObject(declared, where)).map(
      ([field, raw]) => {
        const rule = expectObject(raw, `${where}.${field}`);
        const set = rule.set;
        if (set !== 'creation' && set !== 'change' && set !== 'transition')
          throw new Error(`${where}.${field}: set ${JSON.stringify(set)} is not creation, change or transition`);
        const states = Array.isArray(rule.states) ? rule.states.map(String) : [];
        if (set === 'transition' && states.length === 0)
          throw new Error(`${where}.${field}: a transition time names the states that set it`);
        return {
          field,
          set,
          states,
          nullUntilChange: rule.null_until_change === true,
          ...(typeof rule.decision === 'string' ? { decision: rule.decision } : {}),
        };
      },
    );
  }
  return byKind;
}

function readOperation(
  doc: JsonObject,
  path: string,
  method: HttpMethod,
  pathItem: JsonObject,
  operation: JsonObject,
  timeFields: string[],
): OperationModel {
  const where = `${method.toUpperCase()} ${path}`;
  const operationId = expectString(operation.operationId, `${where} operationId`);
  const tags = Array.isArray(operation.tags) ? operation.tags.map(String) : [];
  const body = readBody(doc, operation, where);
  const validationError = readErrorAnswer(operation['x-validation-error'], `${where} x-validation-error`);
  const malformedBodyError = readErrorAnswer(operation['x-malformed-body-error'], `${where} x-malformed-body-error`);
  const triggers = readErrorTriggers(operation['x-error-triggers'], where);
  const testMode = readTestMode(operation['x-test-mode'], `${where} x-test-mode`);
  const rateLimit = readRateLimit(doc, operation, where);
  const matches = readMatches(operation['x-matches'], where);
  const parameters = readParameters(doc, pathItem, operation, where);
  const idempotency = readIdempotency(operation['x-idempotency'], parameters, where);
  return {
    operationId,
    method,
    path,
    tag: tags[0] ?? '',
    summary: typeof operation.summary === 'string' ? operation.summary : operationId,
    parameters,
    ...(body ? { body } : {}),
    responses: readResponses(doc, operation, where),
    ...(validationError ? { validationError } : {}),
    ...(malformedBodyError ? { malformedBodyError } : {}),
    errorTriggers: triggers,
    ...(testMode ? { testMode } : {}),
    ...(rateLimit ? { rateLimit } : {}),
    ...(idempotency ? { idempotency } : {}),
    timeBound: readTimeBound(doc, triggers, body, timeFields),
    ...(matches ? { matches } : {}),
    pointer: `#/paths/${escapePointerToken(path)}/${method}`,
  };
}

function readWebhook(doc: JsonObject, name: string, operation: JsonObject): WebhookModel {
  const where = `webhook ${name}`;
  const body = expectObject(dereference(doc, operation.requestBody), `${where} requestBody`);
  const content = expectObject(dereference(doc, body.content), `${where} content`);
  const media = expectObject(dereference(doc, content['application/json']), `${where} application/json`);
  const tokenParameter = (Array.isArray(operation.parameters) ? operation.parameters : [])
    .map((raw) => dereference(doc, raw))
    .find((parameter) => isObject(parameter) && parameter.in === 'header');
  if (!isObject(tokenParameter)) throw new Error(`${where}: no callback token header`);
  const delivery = readDelivery(operation['x-delivery'], where);
  const source = readCallbackSource(operation['x-callback-source'], where);
  return {
    name,
    operationId: expectString(operation.operationId, `${where} operationId`),
    summary: typeof operation.summary === 'string' ? operation.summary : name,
    tokenHeader: expectString(tokenParameter.name, `${where} token header`).toLowerCase(),
    bodySchema: media.schema ?? {},
    delivery,
    deliveryRules: readDeliveryRules(delivery, where),
    ...(source ? { source } : {}),
    pointer: `#/webhooks/${escapePointerToken(name)}/post`,
  };
}

/** Reads the bundled OpenAPI 3.1 document into the model. Operations keep the document's order. */
export function readModel(doc: JsonObject): ApiModel {
  const info = expectObject(doc.info, 'info');
  const operations: OperationModel[] = [];
  const timeFields = machineTimeFields(doc);
  const examplesReferenceTime = readReferenceTime(doc);
  for (const [path, rawItem] of Object.entries(expectObject(doc.paths, 'paths'))) {
    const pathItem = expectObject(dereference(doc, rawItem), `path ${path}`);
    for (const method of METHODS) {
      if (isObject(pathItem[method]))
        operations.push(readOperation(doc, path, method, pathItem, pathItem[method], timeFields));
    }
  }
  const webhooks: WebhookModel[] = [];
  for (const [name, rawItem] of Object.entries(isObject(doc.webhooks) ? doc.webhooks : {})) {
    const pathItem = expectObject(dereference(doc, rawItem), `webhook ${name}`);
    if (isObject(pathItem.post)) webhooks.push(readWebhook(doc, name, pathItem.post));
  }
  const components = isObject(doc.components) ? doc.components : {};
  const componentSchemas = isObject(components.schemas) ? components.schemas : {};
  return {
    title: expectString(info.title, 'info.title'),
    version: expectString(info.version, 'info.version'),
    ...(examplesReferenceTime === undefined ? {} : { examplesReferenceTime }),
    operations,
    webhooks,
    componentSchemas,
    timestamps: readTimestamps(componentSchemas),
  };
}

export { assertNever } from './assert-never.js';
export { readStateMachines } from './state-machines.js';
export { ERROR_TRIGGER_KINDS, isErrorTriggerKind, readErrorTrigger } from './error-triggers.js';
export { redateExample, shiftValue, timeOfValue, type Redated } from './example-time.js';
