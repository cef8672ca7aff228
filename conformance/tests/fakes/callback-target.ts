// Test support: a target that sends callbacks, on top of the example-answering target (../target.ts).
// E-wallet creation sends `ewalletPayment` to the "dashboard" URL with the test-mode outcome of its amount;
// fixed virtual account creation and update send `fixedVirtualAccountChanged` there; a direct debit OTP
// test code that fails the payment sends `directDebitPayment` to the payment's callback_url. Deliveries
// retry on any non-2xx answer. Each fault option breaks one thing, so a test can show the suite notices.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import type { Contract } from '../../contract.js';
import { responseExamples } from '../../mock/examples.js';
import { startTarget, type Target, type TargetRequest } from '../target.js';

export interface CallbackTargetOptions {
  apiKey: string;
  callbackToken: string;
  /** Where "dashboard" callbacks go; none are sent when absent. */
  dashboardUrl?: string;
  attempts: number;
  intervalMs: number;
  /** Faults, each by webhook operationId. */
  wrongToken?: string[];
  /** Replaces the body the target would send. */
  corrupt?: Partial<Record<string, (body: JsonObject) => JsonObject>>;
  silent?: string[];
  /** Sends every acknowledged callback a second time. */
  duplicate?: boolean;
  /** Operations answered with their documented 500, as if the target were down for them. */
  failing?: string[];
}

export interface CallbackTarget extends Target {
  /** Attempts made, by webhook operationId. */
  attempts: Map<string, number>;
}

export function webhookExamples(contract: Contract, operationId: string): JsonObject[] {
  const webhook = contract.webhook(operationId);
  const raw = contract.deref({ $ref: webhook.pointer });
  const body = isObject(raw) ? contract.deref(raw.requestBody) : undefined;
  const content = isObject(body) ? contract.deref(body.content) : undefined;
  const media = isObject(content) ? contract.deref(content['application/json']) : undefined;
  const examples = isObject(media) ? contract.deref(media.examples) : undefined;
  return (isObject(examples) ? Object.values(examples) : []).flatMap((e) => {
    const value = isObject(contract.deref(e)) ? (contract.deref(e) as JsonObject).value : undefined;
    return isObject(value) ? [value] : [];
  });
}

/** `base` with every key it has taken from `source` where `source` has one. */
export const overlay = (base: JsonObject, source: JsonObject): JsonObject =>
  Object.fromEntries(
    Object.entries(base).map(([key, value]) => [key, source[key] !== undefined ? (source[key] as Json) : value]),
  );

/** An example id with a fresh tail: `ddpy-<uuid>` keeps its prefix, a hex id keeps its length. */
export const freshId = (id: Json | undefined): string => {
  const text = typeof id === 'string' ? id : '';
  const prefixed = /^([a-z]+-)[0-9a-f-]{36}$/.exec(text);
  if (prefixed) return `${prefixed[1]}${randomUUID()}`;
  return randomUUID()
    .replaceAll('-', '')
    .slice(0, text.length || 24);
};

export const parse = (text: string): JsonObject => {
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value as Json) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
};

export const reply = (status: number, body: Json): { status: number; body: string } => ({
  status,
  body: JSON.stringify(body),
});

/** The test-mode outcome an operation's `x-test-mode` gives a value (its default outcome for any other value). */
export function testOutcome(operation: OperationModel, value: Json | undefined): JsonObject | undefined {
  const field = String(operation.testMode?.field);
  const outcomes = Array.isArray(operation.testMode?.outcomes) ? operation.testMode.outcomes.filter(isObject) : [];
  const found = outcomes.find((o) => (o.value ?? o[field]) === value);
  return found ?? (isObject(operation.testMode?.default_outcome) ? operation.testMode.default_outcome : undefined);
}

/** The e-wallet callback for a payment requested as `request` that ended as `outcome` says. */
export function ewalletCallback(contract: Contract, outcome: JsonObject, request: JsonObject): JsonObject {
  const base = webhookExamples(contract, 'ewalletPayment').find((e) => e.status === outcome.status) ?? {};
  return {
    ...overlay(overlay(base, request), outcome),
    id: freshId(base.id),
    ...(typeof outcome.failure_code === 'string' ? { failure_code: outcome.failure_code } : {}),
  };
}

/** Sends callbacks as a target does: POST with the token, attempted again `intervalMs` apart until a 2xx or `attempts` are spent. */
export interface Sender {
  send: (url: string, webhook: string, body: JsonObject, options?: { token?: string; duplicate?: boolean }) => void;
  /** Attempts made, by webhook operationId. */
  attempts: Map<string, number>;
  /** Resolves when every delivery under way has ended. */
  settle: () => Promise<void>;
}

export function createSender(tokenHeader: string, callbackToken: string, attempts: number, intervalMs: number): Sender {
  const counts = new Map<string, number>();
  const pending = new Set<Promise<void>>();
  const post = async (url: string, webhook: string, body: JsonObject, token: string): Promise<boolean> => {
    counts.set(webhook, (counts.get(webhook) ?? 0) + 1);
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [tokenHeader]: token },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(2000),
      });
      await response.arrayBuffer();
      return response.ok;
    } catch {
      return false;
    }
  };
  return {
    send: (url, webhook, body, options = {}) => {
      const token = options.token ?? callbackToken;
      const run = (async () => {
        for (let attempt = 1; attempt <= attempts; attempt++) {
          if (await post(url, webhook, body, token)) {
            if (options.duplicate) await post(url, webhook, body, token);
            return;
          }
          if (attempt < attempts) await sleep(intervalMs);
        }
      })();
      pending.add(run);
      void run.finally(() => pending.delete(run));
    },
    attempts: counts,
    settle: async () => void (await Promise.allSettled([...pending])),
  };
}

export async function startCallbackTarget(contract: Contract, options: CallbackTargetOptions): Promise<CallbackTarget> {
  const payments = new Map<string, { callbackUrl: string; payment: JsonObject }>();
  const accounts = new Map<string, JsonObject>();
  const tokenHeader = contract.model.webhooks[0]?.tokenHeader ?? 'x-callback-token';
  const ids = createPathMatcher(
    contract.model.operations.map((operation) => ({
      method: operation.method.toUpperCase(),
      path: operation.path,
      value: operation,
    })),
  );
  const sender = createSender(tokenHeader, options.callbackToken, options.attempts, options.intervalMs);

  const deliver = (url: string | undefined, webhook: string, body: JsonObject): void => {
    if (url === undefined || options.silent?.includes(webhook)) return;
    const token = options.wrongToken?.includes(webhook) ? `${options.callbackToken}-wrong` : options.callbackToken;
    sender.send(url, webhook, options.corrupt?.[webhook]?.(body) ?? body, {
      token,
      ...(options.duplicate ? { duplicate: true } : {}),
    });
  };
  /** The fields of `source` that the webhook's body declares: the resource as the callback shows it. */
  const declared = (webhook: string, source: JsonObject): JsonObject => {
    const schema = contract.deref(contract.webhook(webhook).bodySchema);
    const properties = isObject(schema) ? contract.deref(schema.properties) : undefined;
    return Object.fromEntries(Object.entries(source).filter(([key]) => isObject(properties) && key in properties));
  };
  const example = (operation: OperationModel, status: number, code?: string): JsonObject => {
    const all = responseExamples(contract, operation, status).filter(isObject);
    return structuredClone(all.find((e) => code === undefined || e.error_code === code) ?? all[0] ?? {});
  };
  const pathId = (call: TargetRequest): string => {
    const found = ids(
      call.operation.method.toUpperCase(),
      new URL(call.request.url ?? '/', 'http://target.local').pathname,
    );
    return found.kind === 'found' ? (Object.values(found.params)[0] ?? '') : '';
  };
  const handlers: Record<string, (call: TargetRequest, request: JsonObject) => { status: number; body: string }> = {
    createEwalletPayment: (call, request) => {
      // The callback carries the payment's values as the answer gives them (x-callback-source of ewalletPayment).
      const answer = overlay(example(call.operation, 200), request);
      deliver(
        options.dashboardUrl,
        'ewalletPayment',
        ewalletCallback(contract, testOutcome(call.operation, request.amount) ?? {}, answer),
      );
      return reply(200, answer);
    },
    createFixedVirtualAccount: (call, request) => {
      const account = { ...overlay(example(call.operation, 200), request), id: freshId(undefined) };
      accounts.set(String(account.id), account);
      deliver(options.dashboardUrl, 'fixedVirtualAccountChanged', declared('fixedVirtualAccountChanged', account));
      return reply(200, account);
    },
    updateFixedVirtualAccount: (call, request) => {
      const account = {
        ...(accounts.get(pathId(call)) ?? example(call.operation, 200)),
        ...request,
        updated: new Date().toISOString(),
      };
      deliver(options.dashboardUrl, 'fixedVirtualAccountChanged', declared('fixedVirtualAccountChanged', account));
      return reply(200, account);
    },
    createDirectDebitPayment: (call, request) => {
      const payment = {
        ...overlay(example(call.operation, 200), request),
        id: freshId(example(call.operation, 200).id),
      };
      payments.set(String(payment.id), { callbackUrl: String(request.callback_url), payment });
      return reply(200, payment);
    },
    validateDirectDebitPaymentOtp: (call, request) => {
      const stored = payments.get(pathId(call));
      const outcome = testOutcome(call.operation, request[String(call.operation.testMode?.field)]);
      if (!stored || typeof outcome?.error_code !== 'string' || typeof outcome.status !== 'number')
        return reply(200, stored?.payment ?? example(call.operation, 200));
      const base =
        webhookExamples(contract, 'directDebitPayment').find((e) => e.status === 'FAILED' && e.failure_code === null) ??
        {};
      deliver(stored.callbackUrl, 'directDebitPayment', {
        ...overlay(base, stored.payment),
        status: 'FAILED',
        failure_code: null,
        timestamp: new Date().toISOString(),
      });
      return reply(outcome.status, example(call.operation, outcome.status, outcome.error_code));
    },
  };

  const target = await startTarget(contract, options.apiKey, (call: TargetRequest) => {
    if (call.authorized && options.failing?.includes(call.operation.operationId))
      return reply(500, example(call.operation, 500));
    const handler = handlers[call.operation.operationId];
    return call.authorized && handler ? handler(call, parse(call.body)) : undefined;
  });
  return {
    ...target,
    attempts: sender.attempts,
    close: async () => {
      await sender.settle();
      await target.close();
    },
  };
}
