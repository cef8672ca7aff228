// The contract's vendor extensions are well-formed (spec/x-extensions.yaml) and every reference inside
// them points at something the contract defines: codes the operation documents, operations, callbacks,
// state machines and their states, decisions.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  createDocumentAjv,
  deref,
  documentedCodes,
  isObject,
  listOperations,
  listWebhooks,
  loadBundled,
  type Json,
  type JsonObject,
  type OperationEntry,
} from './document.js';
import { describeDecisions } from './decisions.js';

const doc = loadBundled();
const operations = listOperations(doc);
const webhooks = listWebhooks(doc);
const operationIds = new Set(operations.map((o) => o.operationId));
const webhookIds = new Set(webhooks.map((w) => w.operationId));
const COMMON_CODES = new Set([
  'INVALID_API_KEY',
  'REQUEST_FORBIDDEN_ERROR',
  'RATE_LIMIT_EXCEEDED',
  'SERVER_ERROR',
  'SERVICE_UNAVAILABLE',
]);

const extensionsPath = fileURLToPath(new URL('../x-extensions.yaml', import.meta.url));
const extensionSchema = parse(readFileSync(extensionsPath, 'utf8')) as JsonObject;
const { ajv } = createDocumentAjv(doc);
ajv.addSchema(extensionSchema);
function conforms(definition: string, value: Json | undefined): unknown[] {
  const validate = ajv.getSchema(`https://payments-contract.local/x-extensions.yaml#/$defs/${definition}`);
  if (!validate) throw new Error(`no definition ${definition}`);
  return validate(value) ? [] : (validate.errors ?? []);
}

/** Calls `visit` on every schema object reachable from `schema`, following `$ref`s once each. */
function walkSchemas(schema: Json | undefined, visit: (node: JsonObject) => void, seen = new Set<JsonObject>()): void {
  const node = deref(doc, schema);
  if (!isObject(node) || seen.has(node)) return;
  seen.add(node);
  visit(node);
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'examples' || key === 'example' || key === 'enum' || key === 'const') continue;
    if (Array.isArray(child)) child.forEach((item) => walkSchemas(item, visit, seen));
    else if (isObject(child)) {
      if (['properties', 'patternProperties', '$defs', 'dependentSchemas'].includes(key)) {
        Object.values(child).forEach((item) => walkSchemas(item, visit, seen));
      } else walkSchemas(child, visit, seen);
    }
  }
}

function requestSchemas(entry: OperationEntry): Json[] {
  const schemas: Json[] = [];
  const parameters = entry.operation.parameters;
  for (const parameter of Array.isArray(parameters) ? parameters : []) {
    const resolved = deref(doc, parameter);
    if (isObject(resolved) && resolved.schema !== undefined) schemas.push(resolved.schema);
  }
  const body = deref(doc, entry.operation.requestBody);
  const content = isObject(body) ? deref(doc, body.content) : undefined;
  for (const media of Object.values(isObject(content) ? content : {})) {
    const resolved = deref(doc, media);
    if (isObject(resolved) && resolved.schema !== undefined) schemas.push(resolved.schema);
  }
  return schemas;
}

function ruleCodes(entry: OperationEntry): Map<string, string[]> {
  const codes = new Map<string, string[]>();
  for (const schema of requestSchemas(entry)) {
    walkSchemas(schema, (node) => {
      const mapping = node['x-error-codes'];
      if (!isObject(mapping)) return;
      for (const [keyword, code] of Object.entries(mapping))
        codes.set(String(code), [...(codes.get(String(code)) ?? []), keyword]);
    });
  }
  return codes;
}

/**
 * Whether a request to the operation can break a schema: it has a body, or a query or header parameter,
 * or a path parameter with a constraint beyond being a string. (Any non-empty path segment is a valid
 * unconstrained id; an unknown one is a not-found, not a validation failure.)
 */
function canFailValidation(entry: OperationEntry): boolean {
  if (entry.operation.requestBody !== undefined) return true;
  const parameters = Array.isArray(entry.operation.parameters) ? entry.operation.parameters : [];
  return parameters.some((parameter) => {
    const resolved = deref(doc, parameter);
    if (!isObject(resolved)) return false;
    if (resolved.in !== 'path') return true;
    const schema = deref(doc, resolved.schema);
    return (
      isObject(schema) &&
      Object.keys(schema).some((key) => !['type', 'minLength', 'description', 'examples', 'title'].includes(key))
    );
  });
}

describe.each(operations.map((o) => [o.operationId, o] as const))('%s', (_id, entry) => {
  const documented = documentedCodes(doc, entry);
  const isDocumentedAt = (status: number, code: string): boolean => (documented[String(status)] ?? []).includes(code);

  it('states how schema violations and malformed bodies are answered, with documented codes', () => {
    const validation = entry.operation['x-validation-error'];
    expect(validation !== undefined, 'x-validation-error is present exactly when a request can break a schema').toBe(
      canFailValidation(entry),
    );
    if (validation !== undefined) {
      expect(conforms('validationError', validation)).toEqual([]);
      const { status, error_code } = validation as { status: number; error_code: string };
      expect(isDocumentedAt(status, error_code), `${error_code} at ${status}`).toBe(true);
    }
    const malformed = entry.operation['x-malformed-body-error'];
    if (entry.operation.requestBody !== undefined) expect(malformed).toBeDefined();
    if (malformed !== undefined) {
      expect(conforms('malformedBodyError', malformed)).toEqual([]);
      const { status, error_code } = malformed as { status: number; error_code: string };
      expect(isDocumentedAt(status, error_code), `${error_code} at ${status}`).toBe(true);
    }
  });

  it('maps rules to codes it documents at its validation status', () => {
    const validation = entry.operation['x-validation-error'];
    for (const schema of requestSchemas(entry)) {
      walkSchemas(schema, (node) => {
        const mapping = node['x-error-codes'];
        if (mapping === undefined) return;
        expect(conforms('errorCodes', mapping)).toEqual([]);
        for (const [keyword, code] of Object.entries(mapping as JsonObject)) {
          expect(keyword in node, `x-error-codes names ${keyword}, which this schema does not use`).toBe(true);
          const status = isObject(validation) ? Number(validation.status) : 400;
          expect(isDocumentedAt(status, String(code)), `${String(code)} at ${status}`).toBe(true);
        }
      });
    }
  });

  it('says what triggers every other code it documents', () => {
    const triggers = entry.operation['x-error-triggers'];
    if (triggers !== undefined) expect(conforms('errorTriggers', triggers)).toEqual([]);
    const triggerMap = isObject(triggers) ? triggers : {};
    const allDocumented = new Set(Object.values(documented).flat());
    for (const [code, trigger] of Object.entries(triggerMap)) {
      expect(allDocumented.has(code), `trigger for undocumented ${code}`).toBe(true);
      const t = trigger as JsonObject;
      if (t.when === 'state') {
        const machine = deref(doc, (doc['x-state-machines'] as JsonObject)[String(t.machine)]);
        expect(isObject(machine), `machine ${String(t.machine)}`).toBe(true);
        for (const state of t.states as string[]) expect((machine as JsonObject).states).toContain(state);
      }
      if (t.when === 'not_in_catalog') expect(operationIds.has(String(t.catalog))).toBe(true);
      if (t.when === 'test_mode') expect(entry.operation['x-test-mode']).toBeDefined();
      if (t.when === 'duplicate' && isObject(t.answered_as)) {
        const sent = propertiesOf(jsonBodySchema(entry.operation.requestBody));
        const answered = propertiesOf(
          jsonBodySchema(
            Object.entries((entry.operation.responses ?? {}) as JsonObject).find(([status]) =>
              status.startsWith('2'),
            )?.[1],
          ),
        );
        for (const [field, shown] of Object.entries(t.answered_as)) {
          expect(
            (t.fields as string[]).includes(field) && field in sent,
            `answered_as names ${field}, a field of the duplicate rule and of the request`,
          ).toBe(true);
          expect(Object.keys(answered), `the answer shows ${field} as ${String(shown)}`).toContain(String(shown));
        }
      }
    }
    const accounted = new Set([
      ...COMMON_CODES,
      ...Object.keys(triggerMap),
      ...ruleCodes(entry).keys(),
      ...[entry.operation['x-validation-error'], entry.operation['x-malformed-body-error']]
        .filter(isObject)
        .map((e) => String(e.error_code)),
    ]);
    expect([...allDocumented].filter((code) => !accounted.has(code))).toEqual([]);
  });

  it('says how its idempotency key works (x-idempotency) exactly when it takes one: a header of its own, replay and mismatch codes for it, remembered refusals it documents', () => {
    const idempotency = entry.operation['x-idempotency'];
    const triggers = (
      isObject(entry.operation['x-error-triggers']) ? Object.values(entry.operation['x-error-triggers']) : []
    ).filter(isObject);
    const keyHeaders = triggers
      .filter((t) => t.when === 'idempotency_replay' || t.when === 'idempotency_mismatch')
      .map((t) => String(t.header));
    expect(
      idempotency !== undefined,
      'x-idempotency is present exactly when a replay or mismatch code names a key',
    ).toBe(keyHeaders.length > 0);
    if (!isObject(idempotency)) return;
    expect(conforms('idempotency', idempotency)).toEqual([]);
    expect([...new Set(keyHeaders)]).toEqual([idempotency.header]);
    const codes = Object.values(documented).flat();
    for (const code of idempotency.remembered_refusals as string[])
      expect(codes, `remembered refusal ${code}`).toContain(code);
    const { recovery } = idempotency;
    if (!isObject(recovery)) return;
    // The lookup is an operation of this contract, and each query parameter it fills is one the lookup takes.
    const lookup = operations.find((o) => o.operationId === recovery.operation);
    expect(lookup?.method, 'x-idempotency.recovery.operation is a read of this contract').toBe('get');
    const lookupQuery = (Array.isArray(lookup?.operation.parameters) ? lookup.operation.parameters : [])
      .map((parameter) => deref(doc, parameter))
      .filter((parameter) => isObject(parameter) && parameter.in === 'query')
      .map((parameter) => (parameter as JsonObject).name);
    expect(lookupQuery).toEqual(expect.arrayContaining(Object.keys(recovery.query as JsonObject)));
  });

  it('marks as retryable (x-retryable) only codes the response documents', () => {
    const responses = deref(doc, entry.operation.responses);
    for (const [status, response] of Object.entries(isObject(responses) ? responses : {})) {
      const retryable = (deref(doc, response) as JsonObject | undefined)?.['x-retryable'];
      if (retryable === undefined) continue;
      expect(conforms('retryable', retryable)).toEqual([]);
      for (const code of retryable as string[])
        expect(isDocumentedAt(Number(status), code), `${status} ${code}`).toBe(true);
    }
  });

  it('has well-formed test-mode data, if any', () => {
    const testMode = entry.operation['x-test-mode'];
    if (testMode !== undefined) expect(conforms('testMode', testMode)).toEqual([]);
  });
});

describe('rate limits', () => {
  it('are groups of requests per key and window: read 100, write 50, otp 5, each per second', () => {
    expect(conforms('rateLimits', doc['x-rate-limits'])).toEqual([]);
    const limits = Object.entries(doc['x-rate-limits'] as JsonObject).map(([group, value]) => [
      group,
      (value as JsonObject).limit,
      (value as JsonObject).window_seconds,
    ]);
    expect(limits).toEqual([
      ['read', 100, 1],
      ['write', 50, 1],
      ['otp', 5, 1],
    ]);
    // Decision rate-limits: per API key, that is per merchant and mode.
    expect(Object.values(doc['x-rate-limits'] as JsonObject).map((value) => (value as JsonObject).scope)).toEqual([
      ['merchant', 'mode'],
      ['merchant', 'mode'],
      ['merchant', 'mode'],
    ]);
  });

  it('put every GET in read, the two OTP validations in otp and every other operation in write', () => {
    const group = (entry: OperationEntry): string =>
      entry.method === 'get' ? 'read' : /^validate.*Otp$/.test(entry.operationId) ? 'otp' : 'write';
    expect(operations.map((entry) => [entry.operationId, entry.operation['x-rate-limit']])).toEqual(
      operations.map((entry) => [entry.operationId, group(entry)]),
    );
    expect(
      operations
        .filter((entry) => entry.operation['x-rate-limit'] === 'otp')
        .map((entry) => entry.operationId)
        .sort(),
    ).toEqual(['validateDirectDebitPaymentOtp', 'validateLinkedAccountTokenOtp']);
  });
});

describe('examples reference time', () => {
  it('is one ISO 8601 time in UTC at the root, the moment the examples are written against', () => {
    expect(conforms('examplesReferenceTime', doc['x-examples-reference-time'])).toEqual([]);
    expect(conforms('examplesReferenceTime', '2026-11-21T16:30:00+07:00')).not.toEqual([]);
  });
});

describe('known variants', () => {
  it('are well-formed wherever they appear', () => {
    const problems: unknown[] = [];
    const visit = (value: Json | undefined): void => {
      if (Array.isArray(value)) value.forEach(visit);
      else if (isObject(value)) {
        if (value['x-known-variants'] !== undefined)
          problems.push(...conforms('knownVariants', value['x-known-variants']));
        Object.values(value).forEach(visit);
      }
    };
    visit(doc);
    expect(problems).toEqual([]);
  });
});

describe('e-wallet test mode', () => {
  const SEED_TEST_AMOUNTS: [number, string][] = [
    [80002, 'USER_DID_NOT_AUTHORIZE_THE_PAYMENT'],
    [80003, 'ACCOUNT_BLOCKED_ERROR'],
    [80004, 'SENDING_TRANSACTION_ERROR'],
    [80005, 'USER_DECLINED_THE_TRANSACTION'],
    [80006, 'PHONE_NUMBER_NOT_REGISTERED'],
    [80007, 'EWALLET_APP_UNREACHABLE'],
    [80008, 'OVO_TIMEOUT_ERROR'],
    [80009, 'CREDENTIALS_ERROR'],
    [80010, 'ACCOUNT_AUTHENTICATION_ERROR'],
    [80011, 'EXTERNAL_ERROR'],
  ];
  it("maps the seed's amounts 80002-80011 to FAILED with their failure codes, other amounts to COMPLETED", () => {
    const create = operations.find((o) => o.operationId === 'createEwalletPayment');
    const testMode = create?.operation['x-test-mode'] as JsonObject | undefined;
    const outcomes = (testMode?.outcomes ?? []) as JsonObject[];
    expect(outcomes.map((o) => [o.amount, o.failure_code])).toEqual(SEED_TEST_AMOUNTS);
    expect(outcomes.every((o) => o.status === 'FAILED')).toBe(true);
    expect(testMode?.default_outcome).toMatchObject({ status: 'COMPLETED' });
  });
});

describe.each(webhooks.map((w) => [w.key, w] as const))('webhook %s', (_key, entry) => {
  it('states its delivery rules as data: 2xx acknowledges, 3 attempts 30 s apart, at least once, unordered', () => {
    const delivery = entry.operation['x-delivery'];
    expect(conforms('delivery', delivery)).toEqual([]);
    expect(delivery).toMatchObject({
      acknowledgement: '2xx',
      attempts: 3,
      retry_interval_seconds: 30,
      guarantee: 'at-least-once',
      ordering: 'none',
    });
    const requestField = ((delivery as JsonObject).destination as JsonObject).request_field;
    if (isObject(requestField)) {
      const source = operations.find((o) => o.operationId === requestField.operation);
      expect(source, `operation ${String(requestField.operation)}`).toBeDefined();
    }
  });

  it('says which object it reports (x-callback-source): a state machine with a transition sending it, callback fields its body declares, each derived from a field the object is answered with', () => {
    const source = entry.operation['x-callback-source'];
    expect(conforms('callbackSource', source)).toEqual([]);
    const {
      machine: key,
      identity,
      fields,
    } = source as { machine: string; identity: string[]; fields: Record<string, JsonObject> };
    const machine = deref(doc, (doc['x-state-machines'] as JsonObject)[key]) as JsonObject;
    const transitions = machine.transitions as JsonObject[];
    expect(
      transitions.some((t) => (t.effects as JsonObject[] | undefined)?.some((e) => e.callback === entry.operationId)),
      `${key} sends ${entry.operationId}`,
    ).toBe(true);
    expect(identity.filter((name) => fields[name] === undefined)).toEqual([]);
    const declared = propertiesOf(jsonBodySchema(entry.operation.requestBody));
    expect(Object.keys(fields).filter((name) => declared[name] === undefined)).toEqual([]);
    // The object as the machine's resource schema and the answers of the operations that make its transitions show it.
    const answers = transitions.flatMap((t) =>
      operations.filter((o) => o.operationId === (t.trigger as JsonObject).operation),
    );
    const answered = Object.assign(
      {},
      propertiesOf({ $ref: `#/components/schemas/${String(machine.resource)}` }),
      ...answers.map((o) => propertiesOf(jsonBodySchema(((o.operation.responses ?? {}) as JsonObject)['200']))),
    ) as JsonObject;
    const sources = Object.values(fields).flatMap((f) => [
      String(f.from),
      ...(f.without_prefix === undefined ? [] : [String(f.without_prefix)]),
    ]);
    expect(sources.filter((name) => answered[name] === undefined)).toEqual([]);
  });
});

describe('state machines', () => {
  const machines = doc['x-state-machines'] as JsonObject;
  it("cover the seed's seven resources", () => {
    expect(Object.keys(machines).sort()).toEqual([
      'directDebitPayment',
      'disbursement',
      'ewalletPayment',
      'fixedPaymentCode',
      'fixedVirtualAccount',
      'linkedAccountToken',
      'paymentMethod',
    ]);
  });

  it.each(Object.keys(machines))(
    '%s is well-formed and refers only to defined states, operations, callbacks and codes',
    (name) => {
      const machine = deref(doc, machines[name]) as JsonObject;
      expect(conforms('stateMachine', machine)).toEqual([]);
      const states = machine.states as string[];
      expect(states).toContain(machine.initial);
      const schemas = (doc.components as JsonObject).schemas as JsonObject;
      const resource = deref(doc, schemas[String(machine.resource)]);
      expect(isObject(resource), `schema ${String(machine.resource)}`).toBe(true);
      if (typeof machine.field === 'string') {
        const property = deref(doc, ((resource as JsonObject).properties as JsonObject)[machine.field]) as JsonObject;
        expect([...(property.enum as string[])].sort()).toEqual([...states].sort());
      }
      for (const transition of machine.transitions as JsonObject[]) {
        if (transition.from !== null) expect(states).toContain(transition.from);
        expect(states).toContain(transition.to);
        const trigger = transition.trigger as JsonObject;
        if (trigger.operation !== undefined)
          expect(operationIds.has(String(trigger.operation)), String(trigger.operation)).toBe(true);
        for (const effect of (transition.effects ?? []) as JsonObject[]) {
          if (effect.callback !== undefined)
            expect(webhookIds.has(String(effect.callback)), String(effect.callback)).toBe(true);
          if (effect.error !== undefined) {
            const source = operations.find((o) => o.operationId === trigger.operation) as OperationEntry;
            expect(Object.values(documentedCodes(doc, source)).flat()).toContain(effect.error);
          }
          if (effect.balance !== undefined)
            expectBalanceEffectResolves(machine, transition, effect.balance as JsonObject);
        }
        if (transition.when !== undefined)
          expectFieldPathsResolve(machine, transition, Object.keys(transition.when as JsonObject));
      }
    },
  );
});

/** The properties of a schema, through references and allOf. */
function propertiesOf(schema: Json | undefined): JsonObject {
  const node = deref(doc, schema);
  if (!isObject(node)) return {};
  const members = Array.isArray(node.allOf) ? node.allOf.map(propertiesOf) : [];
  return Object.assign({}, ...members, isObject(node.properties) ? node.properties : {}) as JsonObject;
}

const jsonBodySchema = (holder: Json | undefined): Json | undefined => {
  const content = deref(doc, (deref(doc, holder) as JsonObject | undefined)?.content);
  return isObject(content) && isObject(content['application/json']) ? content['application/json'].schema : undefined;
};

/**
 * A balance effect names the operation that reads the balance, query values that operation accepts, the
 * field of its answer that holds the amount, and fields of the machine's resource (`resource.x`) or of the
 * payload of the callback the transition sends (`payload.x`).
 */
function expectBalanceEffectResolves(machine: JsonObject, transition: JsonObject, balance: JsonObject): void {
  const reader = operations.find((o) => o.operationId === balance.operation);
  expect(reader, `balance operation ${String(balance.operation)}`).toBeDefined();
  const parameters = (Array.isArray(reader?.operation.parameters) ? reader.operation.parameters : []).map(
    (p) => deref(doc, p) as JsonObject,
  );
  for (const [name, value] of Object.entries(balance.query as JsonObject)) {
    const parameter = parameters.find((p) => p.name === name && p.in === 'query');
    expect(parameter, `query parameter ${name} of ${String(balance.operation)}`).toBeDefined();
    const { ajv: valueAjv } = createDocumentAjv(doc);
    expect(valueAjv.validate(deref(doc, parameter?.schema) as JsonObject, value), `${name}=${String(value)}`).toBe(
      true,
    );
  }
  const responses = (reader?.operation.responses ?? {}) as JsonObject;
  const success = Object.entries(responses).find(([status]) => status.startsWith('2'))?.[1];
  const answer = propertiesOf(jsonBodySchema(success));
  expect(
    deref(doc, answer[String(balance.field)]),
    `${String(balance.operation)} answers ${String(balance.field)}`,
  ).toMatchObject({ type: 'number' });
  expectFieldPathsResolve(machine, transition, [
    String(balance.amount),
    ...Object.keys((balance.when ?? {}) as JsonObject),
  ]);
}

/** `resource.x` is a field of the machine's resource, `payload.x` a field of the payload of every callback the transition sends. */
function expectFieldPathsResolve(machine: JsonObject, transition: JsonObject, paths: string[]): void {
  const schemas = (doc.components as JsonObject).schemas as JsonObject;
  const resource = propertiesOf(schemas[String(machine.resource)]);
  const callbacks = ((transition.effects ?? []) as JsonObject[]).flatMap((e) =>
    typeof e.callback === 'string' ? [e.callback] : [],
  );
  const payloads = callbacks.map((id) =>
    propertiesOf(jsonBodySchema(webhooks.find((w) => w.operationId === id)?.operation.requestBody)),
  );
  for (const path of paths) {
    const [source, field] = path.split('.') as [string, string];
    if (source === 'resource') expect(Object.keys(resource), `${path} in ${String(machine.resource)}`).toContain(field);
    else
      expect(
        payloads.length > 0 && payloads.every((payload) => field in payload),
        `${path}: a field of the payload of the transition's callback`,
      ).toBe(true);
  }
}

describeDecisions(doc, { conforms });

describe('timestamps and the order of matches', () => {
  const decisionIds = new Set(((doc['x-decisions'] ?? []) as JsonObject[]).map((d) => String(d.id)));
  const schemas = (doc.components as JsonObject).schemas as JsonObject;
  const machines = Object.values(doc['x-state-machines'] as JsonObject).map((m) => deref(doc, m) as JsonObject);
  const timed = Object.entries(schemas).filter(
    ([, schema]) => isObject(schema) && schema['x-timestamps'] !== undefined,
  );

  it('x-timestamps sit on the resources that carry timestamps, each naming a date-time field, known states and a decision', () => {
    expect(timed.map(([name]) => name).sort()).toEqual([
      'Customer',
      'DirectDebitPayment',
      'Disbursement',
      'EwalletPayment',
      'EwalletPaymentStatus',
      'FixedVirtualAccount',
      'PaymentMethod',
    ]);
    for (const [name, schema] of timed) {
      const rules = (schema as JsonObject)['x-timestamps'] as JsonObject;
      expect(conforms('timestamps', rules), name).toEqual([]);
      const properties = propertiesOf(schema);
      const states = machines.filter((m) => m.resource === name).flatMap((m) => m.states as string[]);
      for (const [field, rule] of Object.entries(rules) as [string, JsonObject][]) {
        expect((deref(doc, properties[field]) as JsonObject | undefined)?.format, `${name}.${field}`).toBe('date-time');
        for (const state of (rule.states ?? []) as string[]) expect(states, `${name}.${field}`).toContain(state);
        if (rule.decision !== undefined)
          expect(decisionIds.has(String(rule.decision)), `${name}.${field}: ${String(rule.decision)}`).toBe(true);
      }
    }
  });

  it("x-matches sit on GET operations answering the merchant's objects, each with a decision", () => {
    const ordered = operations.filter((entry) => entry.operation['x-matches'] !== undefined);
    expect(ordered.map((entry) => entry.operationId).sort()).toEqual([
      'getDirectDebitPaymentByReferenceId',
      'listCustomers',
      'listDisbursementsByExternalId',
      'listLinkedAccountTokenAccounts',
      'listPaymentMethodsByCustomer',
    ]);
    for (const entry of ordered) {
      const matches = entry.operation['x-matches'] as JsonObject;
      expect(conforms('matches', matches), entry.operationId).toEqual([]);
      expect(entry.method, entry.operationId).toBe('get');
      expect(decisionIds.has(String(matches.decision)), `${entry.operationId}: ${String(matches.decision)}`).toBe(true);
    }
  });
});
