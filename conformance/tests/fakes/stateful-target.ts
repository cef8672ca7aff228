// Test support: a small stateful target, enough of the contract for the workflows and the idempotency
// operations, on top of the example-answering target (../target.ts). Answers are the contract's own
// examples with the stored object's values laid over them; error codes come from the operations'
// `x-error-triggers` by kind. Each fault option breaks one behaviour, so a test can show the suite
// notices it and reports it against the right subject.
import { randomBytes, randomUUID } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import type {
  ErrorTriggerKind,
  ErrorTriggerOf,
  Json,
  JsonObject,
  OperationModel,
} from '@payments-contract/contract/model/types';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import type { Contract } from '../../contract.js';
import { isIdempotencyHeader } from '../../data/requests.js';
import { responseExamples } from '../../mock/examples.js';
import { triggersOf } from '../../workflows/resources.js';
import { startTarget, type Target, type TargetRequest } from '../target.js';

export interface StatefulFaults {
  /** Idempotency keys are ignored: a replayed key creates again. */
  ignoreIdempotencyKeys?: boolean;
  /** Idempotency keys of any length (or none) are accepted. */
  ignoreKeyLength?: boolean;
  /** A fixed virtual account or payment code can be updated after it expired. */
  updateWhenInactive?: boolean;
  /** E-wallet test amounts complete like any other amount. */
  ignoreTestAmounts?: boolean;
  /** E-wallet payments stay PENDING on the status operation (the outcome would come by callback only). */
  outcomeByCallbackOnly?: boolean;
  /** A second payment method for the same linked account is accepted. */
  allowDuplicatePaymentMethod?: boolean;
  /** Unknown ids are answered with this code instead of the documented one. */
  notFoundCode?: string;
  /** Disbursements are refused for lack of balance (a configuration the suite must not count as a failure). */
  insufficientBalance?: boolean;
}

type Reply = { status: number; body: Json };
type Handler = (call: {
  operation: OperationModel;
  params: Record<string, string>;
  query: URLSearchParams;
  body: JsonObject;
  raw: string;
  headers: TargetRequest['request']['headers'];
}) => Reply;

/** How long a test-mode e-wallet payment stays PENDING before its outcome shows. */
const OUTCOME_DELAY_MS = 30;

export async function startStatefulTarget(
  contract: Contract,
  apiKey: string,
  faults: StatefulFaults = {},
): Promise<Target> {
  const op = (id: string): OperationModel => contract.operation(id);
  const example = (id: string): JsonObject => {
    const value = responseExamples(contract, op(id), 200)[0];
    return isObject(value)
      ? value
      : isObject(Array.isArray(value) ? value[0] : undefined)
        ? ((value as Json[])[0] as JsonObject)
        : {};
  };
  const codeOf = <K extends ErrorTriggerKind>(
    id: string,
    when: K,
    pick: (trigger: ErrorTriggerOf<K>) => boolean = () => true,
  ): string => triggersOf(op(id), when).find(([, trigger]) => pick(trigger))?.[0] ?? 'SERVER_ERROR';
  const error = (id: string, code: string): Reply => ({
    status: op(id).responses.find((r) => r.errorCodes.includes(code))?.status ?? 500,
    body: { error_code: code, message: `fake: ${code}` },
  });
  const notFound = (id: string, name = ''): Reply =>
    error(id, faults.notFoundCode ?? codeOf(id, 'not_found', (t) => !name || t.parameter.name === name));
  const invalid = (id: string): Reply => ({
    status: op(id).validationError?.status ?? 400,
    body: { error_code: op(id).validationError?.error_code ?? 'API_VALIDATION_ERROR', message: 'fake: invalid' },
  });
  const ok = (body: Json): Reply => ({ status: 200, body });
  const hexId = (): string => randomBytes(12).toString('hex');
  const past = (value: Json | undefined): boolean => typeof value === 'string' && Date.parse(value) <= Date.now();
  /** The example answer with the stored values over it. */
  const shape = (id: string, values: JsonObject): JsonObject => ({ ...example(id), ...values });

  const stores = {
    fva: new Map<string, JsonObject>(),
    fpc: new Map<string, JsonObject & { inactive?: boolean }>(),
    disbursements: new Map<string, JsonObject>(),
    ewallets: new Map<string, { value: JsonObject; outcome: string; at: number }>(),
    customers: new Map<string, JsonObject>(),
    tokens: new Map<string, JsonObject>(),
    accounts: new Map<string, string>(),
    methods: new Map<string, JsonObject>(),
    debits: new Map<string, JsonObject>(),
  };
  const keys = new Map<string, { raw: string }>();

  /** Applies the operation's idempotency header rules around a creation. */
  const idempotent = (id: string, call: Parameters<Handler>[0], create: () => Reply): Reply => {
    const header = op(id).parameters.find(isIdempotencyHeader);
    if (!header) return create();
    const key = call.headers[header.name.toLowerCase()];
    const value = Array.isArray(key) ? key[0] : key;
    if (value === undefined) return header.required && !faults.ignoreKeyLength ? invalid(id) : create();
    if (!faults.ignoreKeyLength && contract.validate(header.schema, value).length > 0) return invalid(id);
    const seen = keys.get(`${id}:${value}`);
    if (seen && !faults.ignoreIdempotencyKeys)
      return error(id, codeOf(id, seen.raw === call.raw ? 'idempotency_replay' : 'idempotency_mismatch'));
    const reply = create();
    if (reply.status < 300) keys.set(`${id}:${value}`, { raw: call.raw });
    return reply;
  };

  /** A stored object without the fake's own bookkeeping. */
  const visible = (value: JsonObject & { inactive?: boolean }): JsonObject =>
    Object.fromEntries(Object.entries(value).filter(([key]) => key !== 'inactive'));
  const update = (
    store: Map<string, JsonObject & { inactive?: boolean }>,
    id: string,
    machineCode: () => string,
    call: Parameters<Handler>[0],
  ): Reply => {
    const found = store.get(call.params.id ?? '');
    if (!found) return notFound(id);
    if ((found.inactive || found.status === 'INACTIVE') && !faults.updateWhenInactive) return error(id, machineCode());
    Object.assign(found, call.body);
    if (past(call.body.expiration_date)) {
      found.inactive = true;
      if ('status' in found) found.status = 'INACTIVE';
    }
    return ok(visible(found));
  };

  const ewalletStatus = (entry: { value: JsonObject; outcome: string; at: number }): string =>
    faults.outcomeByCallbackOnly || Date.now() - entry.at < OUTCOME_DELAY_MS ? 'PENDING' : entry.outcome;

  const handlers: Record<string, Handler> = {
    createFixedVirtualAccount: (c) => {
      const value = shape(c.operation.operationId, { ...c.body, id: hexId(), status: 'ACTIVE' });
      stores.fva.set(value.id as string, value);
      return ok(value);
    },
    getFixedVirtualAccount: (c) =>
      stores.fva.has(c.params.id ?? '')
        ? ok(stores.fva.get(c.params.id ?? '') ?? {})
        : notFound(c.operation.operationId),
    updateFixedVirtualAccount: (c) =>
      update(stores.fva, c.operation.operationId, () => codeOf(c.operation.operationId, 'state'), c),
    createFixedPaymentCode: (c) => {
      const value = shape(c.operation.operationId, { ...c.body, id: hexId() });
      stores.fpc.set(value.id as string, value);
      return ok(value);
    },
    getFixedPaymentCode: (c) =>
      stores.fpc.has(c.params.id ?? '')
        ? ok(visible(stores.fpc.get(c.params.id ?? '') ?? {}))
        : notFound(c.operation.operationId),
    updateFixedPaymentCode: (c) =>
      update(stores.fpc, c.operation.operationId, () => codeOf(c.operation.operationId, 'state'), c),
    createDisbursement: (c) =>
      idempotent(c.operation.operationId, c, () => {
        if (faults.insufficientBalance)
          return error(c.operation.operationId, codeOf(c.operation.operationId, 'insufficient_balance'));
        const value = shape(c.operation.operationId, {
          ...c.body,
          id: hexId(),
          status: 'PENDING',
          disbursement_description: String(c.body.description ?? 'fake'),
        });
        delete value.description;
        stores.disbursements.set(value.id as string, value);
        return ok(value);
      }),
    getDisbursement: (c) =>
      stores.disbursements.has(c.params.id ?? '')
        ? ok(stores.disbursements.get(c.params.id ?? '') ?? {})
        : notFound(c.operation.operationId),
    listDisbursementsByExternalId: (c) => {
      const found = [...stores.disbursements.values()].filter((d) => d.external_id === c.query.get('external_id'));
      return found.length > 0 ? ok(found) : notFound(c.operation.operationId);
    },
    createEwalletPayment: (c) => {
      const id = c.operation.operationId;
      const external = String(c.body.external_id);
      if (stores.ewallets.has(external)) return error(id, codeOf(id, 'duplicate'));
      const outcomes = Array.isArray(c.operation.testMode?.outcomes)
        ? c.operation.testMode.outcomes.filter(isObject)
        : [];
      const chosen = faults.ignoreTestAmounts ? undefined : outcomes.find((o) => o.amount === c.body.amount);
      const fallback = isObject(c.operation.testMode?.default_outcome)
        ? c.operation.testMode.default_outcome.status
        : undefined;
      const value = shape(id, { ...c.body, status: 'PENDING' });
      stores.ewallets.set(external, { value, outcome: String(chosen?.status ?? fallback), at: Date.now() });
      return ok(value);
    },
    getEwalletPaymentStatus: (c) => {
      const entry = stores.ewallets.get(c.query.get('external_id') ?? '');
      if (!entry || entry.value.ewallet_type !== c.query.get('ewallet_type')) return notFound(c.operation.operationId);
      return ok(
        shape(c.operation.operationId, {
          amount: entry.value.amount ?? 0,
          external_id: entry.value.external_id ?? '',
          ewallet_type: entry.value.ewallet_type ?? '',
          status: ewalletStatus(entry),
        }),
      );
    },
    createCustomer: (c) => {
      const id = c.operation.operationId;
      if ([...stores.customers.values()].some((customer) => customer.external_id === c.body.external_id))
        return error(id, codeOf(id, 'duplicate'));
      const value = { ...c.body, id: hexId(), created: new Date().toISOString(), updated: new Date().toISOString() };
      stores.customers.set(value.id, value);
      return ok(value);
    },
    updateCustomer: (c) => {
      const found = stores.customers.get(c.params.id ?? '');
      if (!found) return notFound(c.operation.operationId);
      return ok(Object.assign(found, c.body));
    },
    listCustomers: (c) =>
      ok(
        [...stores.customers.values()].filter(
          (customer) => !c.query.has('external_id') || customer.external_id === c.query.get('external_id'),
        ),
      ),
    initializeLinkedAccountTokenization: (c) => {
      if (!stores.customers.has(String(c.body.customer_id))) return notFound(c.operation.operationId, 'customer_id');
      const value = shape(c.operation.operationId, {
        id: `lat-${randomUUID()}`,
        customer_id: c.body.customer_id ?? '',
        status: 'PENDING',
        metadata: c.body.metadata ?? null,
      });
      stores.tokens.set(value.id as string, value);
      return ok(value);
    },
    validateLinkedAccountTokenOtp: (c) => {
      const id = c.operation.operationId;
      const token = stores.tokens.get(c.params.id ?? '');
      if (!token) return notFound(id);
      if (token.status === 'SUCCESS')
        return error(
          id,
          codeOf(id, 'state', (t) => t.states.includes('SUCCESS')),
        );
      const outcomes = Array.isArray(c.operation.testMode?.outcomes)
        ? c.operation.testMode.outcomes.filter(isObject)
        : [];
      if (!outcomes.some((o) => o.result === 'success' && o.value === c.body.otp_code))
        return error(
          id,
          codeOf(id, 'otp', (t) => t.outcome === 'invalid'),
        );
      token.status = 'SUCCESS';
      return ok({
        id: token.id ?? '',
        customer_id: token.customer_id ?? '',
        channel_code: token.channel_code ?? '',
        status: 'SUCCESS',
      });
    },
    listLinkedAccountTokenAccounts: (c) => {
      const token = stores.tokens.get(c.params.id ?? '');
      if (!token) return notFound(c.operation.operationId);
      const account = `la-${randomUUID()}`;
      stores.accounts.set(account, String(token.customer_id));
      return ok([shape(c.operation.operationId, { id: account })]);
    },
    createPaymentMethod: (c) => {
      const id = c.operation.operationId;
      const account = isObject(c.body.properties) ? String(c.body.properties.id) : '';
      if (!stores.customers.has(String(c.body.customer_id))) return notFound(id, 'customer_id');
      if (stores.accounts.get(account) !== c.body.customer_id) return notFound(id, 'properties.id');
      const duplicate = [...stores.methods.values()].some(
        (m) => isObject(m.properties) && m.properties.id === account && m.status === 'ACTIVE',
      );
      if (duplicate && !faults.allowDuplicatePaymentMethod) return error(id, codeOf(id, 'duplicate'));
      const base = example(id);
      const value = shape(id, {
        id: `pm-${randomUUID()}`,
        customer_id: c.body.customer_id ?? '',
        status: 'ACTIVE',
        properties: { ...(isObject(base.properties) ? base.properties : {}), id: account },
      });
      stores.methods.set(value.id as string, value);
      return ok(value);
    },
    createDirectDebitPayment: (c) =>
      idempotent(c.operation.operationId, c, () => {
        const id = c.operation.operationId;
        if (!stores.methods.has(String(c.body.payment_method_id))) return notFound(id, 'payment_method_id');
        const { callback_url: _url, enable_otp: otp, ...fields } = c.body;
        const value = shape(id, {
          ...fields,
          id: `ddpy-${randomUUID()}`,
          status: 'PENDING',
          is_otp_required: otp === true,
          created: new Date().toISOString(),
        });
        stores.debits.set(value.id as string, value);
        return ok(value);
      }),
    validateDirectDebitPaymentOtp: (c) => {
      const debit = stores.debits.get(c.params.id ?? '');
      if (!debit) return notFound(c.operation.operationId);
      const outcomes = Array.isArray(c.operation.testMode?.outcomes)
        ? c.operation.testMode.outcomes.filter(isObject)
        : [];
      if (!outcomes.some((o) => o.result === 'success' && o.value === c.body.otp_code))
        return error(
          c.operation.operationId,
          codeOf(c.operation.operationId, 'otp', (t) => t.outcome === 'invalid'),
        );
      return ok(debit);
    },
    getDirectDebitPayment: (c) =>
      stores.debits.has(c.params.id ?? '')
        ? ok(stores.debits.get(c.params.id ?? '') ?? {})
        : notFound(c.operation.operationId),
    getDirectDebitPaymentByReferenceId: (c) => {
      const found = [...stores.debits.values()].filter((d) => d.reference_id === c.query.get('reference_id')).at(-1);
      return found ? ok(found) : notFound(c.operation.operationId);
    },
    getFixedVirtualAccountPayment: (c) => notFound(c.operation.operationId),
  };

  const match = createPathMatcher(
    contract.model.operations.map((operation) => ({
      method: operation.method.toUpperCase(),
      path: operation.path,
      value: operation,
    })),
  );
  return startTarget(contract, apiKey, (call) => {
    const handler = handlers[call.operation.operationId];
    if (!call.authorized || !handler) return undefined;
    const url = new URL(call.request.url ?? '/', 'http://fake.local');
    const found = match(call.operation.method.toUpperCase(), url.pathname);
    let body: Json = {};
    try {
      body = call.body === '' ? {} : (JSON.parse(call.body) as Json);
    } catch {
      return {
        status: 400,
        body: JSON.stringify({
          error_code: call.operation.malformedBodyError?.error_code ?? 'INVALID_JSON_FORMAT',
          message: 'fake: not JSON',
        }),
      };
    }
    const reply = handler({
      operation: call.operation,
      params: found.kind === 'found' ? found.params : {},
      query: url.searchParams,
      body: isObject(body) ? body : {},
      raw: call.body,
      headers: call.request.headers,
    });
    return { status: reply.status, body: JSON.stringify(reply.body) };
  });
}
