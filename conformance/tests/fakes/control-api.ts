// Test support: a small target with a sandbox control API, enough to drive the suite's simulation triggers.
// It serves GET /sandbox, its control contract at /sandbox/openapi.json (the bundled one, with
// `x-simulates` and `x-callback-settings` added where it lacks them, and without the clock and the delivery
// records, which it does not offer, and without the automatic outcomes of `x-test-modes`), the settings, disbursement creation
// with the bank's two simulated answers, and e-wallet payments that resolve by their test amount unless
// `ewallet_auto_resolve` is off, with approve and decline. Callbacks go to the configured callback URLs
// and are retried like a real target's. Each fault option breaks one thing.
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { createPathMatcher } from '@payments-contract/server/runtime/path-matcher';
import { createContract, type Contract } from '../../contract.js';
import { defaultControlSpecPath } from '../../callbacks/sandbox.js';
import { responseExamples } from '../../mock/examples.js';
import {
  createSender,
  ewalletCallback,
  freshId,
  overlay,
  parse,
  testOutcome,
  webhookExamples,
} from './callback-target.js';

/** What each simulation operation makes happen in the service's machines: test data, used where a control contract lacks them. */
export const SIMULATES: Record<string, JsonObject> = {
  // No `to`: the account or code stays ACTIVE or becomes INACTIVE as its is_single_use says.
  simulateFixedVirtualAccountPayment: { machine: 'fixedVirtualAccount', event: 'payment_received' },
  simulateFixedPaymentCodePayment: { machine: 'fixedPaymentCode', event: 'payment_received' },
  completeDisbursement: { machine: 'disbursement', event: 'bank_confirmed_transfer', to: 'COMPLETED' },
  failDisbursement: { machine: 'disbursement', event: 'bank_rejected_transfer', to: 'FAILED' },
  approveEwalletPayment: { machine: 'ewalletPayment', event: 'end_user_approved', to: 'COMPLETED' },
  declineEwalletPayment: { machine: 'ewalletPayment', event: 'end_user_declined', to: 'FAILED' },
  completeDirectDebitPayment: { machine: 'directDebitPayment', event: 'bank_outcome', to: 'COMPLETED' },
  failDirectDebitPayment: { machine: 'directDebitPayment', event: 'bank_outcome', to: 'FAILED' },
  invalidatePaymentMethod: { machine: 'paymentMethod', event: 'payment_method_invalidated', to: 'INACTIVE' },
};

/** The bundled control contract with the extensions the suite reads, added where it does not have them yet. */
export function controlDocument(options: { simulates?: boolean; callbackSettings?: boolean } = {}): JsonObject {
  const doc = JSON.parse(readFileSync(defaultControlSpecPath, 'utf8')) as JsonObject;
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      if (!isObject(operation)) continue;
      const simulates = SIMULATES[String(operation.operationId)];
      if (options.simulates === false) delete operation['x-simulates'];
      else if (simulates && operation['x-simulates'] === undefined) operation['x-simulates'] = simulates;
    }
  }
  if (options.callbackSettings === false) delete doc['x-callback-settings'];
  else doc['x-callback-settings'] ??= { operation: 'updateSettings', field: 'callback_urls' };
  // This target has no clock to move and keeps no delivery records: the suite waits for its retries in real
  // time, as for any target whose control contract does not say how to bring them on.
  delete doc['x-clock-advance'];
  delete doc['x-callback-deliveries'];
  // Nor does it finish disbursements or direct debits by itself: it documents no such test mode.
  delete doc['x-test-modes'];
  delete doc['x-auto-progress-delay'];
  return doc;
}

export interface ControlApiOptions {
  apiKey: string;
  callbackToken: string;
  attempts: number;
  intervalMs: number;
  /** The control contract it serves (default: controlDocument()). */
  document?: JsonObject;
  /** Simulations whose callback reports another state than the one they lead to. */
  wrongState?: string[];
  /** Simulations answered 409 whatever the object's state. */
  refuse?: string[];
  /** E-wallet payments resolve by their test amount even with ewallet_auto_resolve off. */
  ignoreHold?: boolean;
}

export interface ControlApiTarget {
  url: string;
  /** Control requests received, by operationId. */
  calls: Map<string, number>;
  /** The settings as they are now. */
  settings: () => JsonObject;
  close: () => Promise<void>;
}

type Answer = { status: number; body: Json };

export async function startControlApiTarget(service: Contract, options: ControlApiOptions): Promise<ControlApiTarget> {
  const document = options.document ?? controlDocument();
  const control = createContract(document);
  const entries = [
    ...service.model.operations.map((operation) => ({ operation, contract: service })),
    ...control.model.operations.map((operation) => ({ operation, contract: control })),
  ];
  const match = createPathMatcher(
    entries.map((entry) => ({
      method: entry.operation.method.toUpperCase(),
      path: entry.operation.path,
      value: entry,
    })),
  );
  const sender = createSender(
    service.model.webhooks[0]?.tokenHeader ?? 'x-callback-token',
    options.callbackToken,
    options.attempts,
    options.intervalMs,
  );
  const expectedAuth = `Basic ${Buffer.from(`${options.apiKey}:`).toString('base64')}`;
  const example = (contract: Contract, operation: OperationModel, status = 200): JsonObject => {
    const value = responseExamples(contract, operation, status)[0];
    return isObject(value) ? structuredClone(value) : {};
  };
  const settingsExample = example(control, control.operation('getSettings'));
  let settings: JsonObject = {
    ...settingsExample,
    callback_urls: Object.fromEntries(
      Object.keys(isObject(settingsExample.callback_urls) ? settingsExample.callback_urls : {}).map((key) => [
        key,
        null,
      ]),
    ),
    ewallet_auto_resolve: true,
  };
  const disbursements = new Map<string, JsonObject>();
  const ewallets = new Map<string, { payment: JsonObject; resolved: boolean }>();
  const calls = new Map<string, number>();

  const urlOf = (webhook: string): string | undefined => {
    const destination = service.webhook(webhook).delivery.destination;
    const url =
      'dashboard_setting' in destination && isObject(settings.callback_urls)
        ? settings.callback_urls[destination.dashboard_setting]
        : undefined;
    return typeof url === 'string' ? url : undefined;
  };
  const send = (webhook: string, body: JsonObject): void => {
    const url = urlOf(webhook);
    if (url !== undefined) sender.send(url, webhook, body);
  };
  const conflict = (operationId: string): Answer => ({
    status: 409,
    body: { error_code: 'SANDBOX_STATE_CONFLICT', message: `fake: ${operationId} does not apply` },
  });
  const stateFor = (operationId: string, state: string): string =>
    options.wrongState?.includes(operationId) ? (state === 'COMPLETED' ? 'FAILED' : 'COMPLETED') : state;

  const finishDisbursement = (operationId: string, id: string, body: JsonObject, state: string): Answer => {
    const stored = disbursements.get(id);
    if (!stored)
      return {
        status: 404,
        body: { error_code: 'DIRECT_DISBURSEMENT_NOT_FOUND_ERROR', message: 'fake: unknown disbursement' },
      };
    if (stored.status !== 'PENDING' || options.refuse?.includes(operationId)) return conflict(operationId);
    const finished: JsonObject = {
      ...stored,
      status: state,
      ...(typeof body.failure_code === 'string' ? { failure_code: body.failure_code } : {}),
    };
    disbursements.set(id, finished);
    const base = webhookExamples(service, 'disbursementFinished').find((e) => e.status === state) ?? {};
    send('disbursementFinished', {
      ...overlay(base, finished),
      ...(typeof body.failure_code === 'string' ? { failure_code: body.failure_code } : {}),
      is_instant: body.is_instant ?? base.is_instant ?? true,
      status: stateFor(operationId, state),
    });
    return { status: 200, body: finished };
  };
  const resolveEwallet = (operationId: string, body: JsonObject, state: string): Answer => {
    const stored = ewallets.get(String(body.external_id));
    if (!stored)
      return { status: 404, body: { error_code: 'PAYMENT_NOT_FOUND_ERROR', message: 'fake: unknown payment' } };
    if (stored.resolved || options.refuse?.includes(operationId)) return conflict(operationId);
    stored.resolved = true;
    send(
      'ewalletPayment',
      ewalletCallback(
        service,
        {
          status: stateFor(operationId, state),
          ...(typeof body.failure_code === 'string' ? { failure_code: body.failure_code } : {}),
        },
        stored.payment,
      ),
    );
    return {
      status: 200,
      body: overlay(example(control, control.operation(operationId)), { ...stored.payment, status: state }),
    };
  };

  const handlers: Record<
    string,
    (params: Record<string, string>, body: JsonObject, operation: OperationModel) => Answer
  > = {
    getSandbox: (_p, _b, operation) => ({
      status: 200,
      body: { ...example(control, operation), callback_retry_delay_ms: options.intervalMs },
    }),
    getSettings: () => ({ status: 200, body: settings }),
    updateSettings: (_p, body) => {
      const merged = Object.fromEntries(
        Object.entries(body).map(([key, value]) => [
          key,
          isObject(value) && isObject(settings[key]) ? { ...(settings[key] as JsonObject), ...value } : value,
        ]),
      );
      settings = { ...settings, ...merged };
      return { status: 200, body: settings };
    },
    createDisbursement: (_p, body, operation) => {
      const created = { ...overlay(example(service, operation), body), id: freshId(undefined), status: 'PENDING' };
      disbursements.set(String(created.id), created);
      return { status: 200, body: created };
    },
    completeDisbursement: (params, body) =>
      finishDisbursement('completeDisbursement', params.id ?? '', body, 'COMPLETED'),
    failDisbursement: (params, body) => finishDisbursement('failDisbursement', params.id ?? '', body, 'FAILED'),
    createEwalletPayment: (_p, body, operation) => {
      const resolved = settings.ewallet_auto_resolve === true || options.ignoreHold === true;
      ewallets.set(String(body.external_id), { payment: body, resolved });
      if (resolved) send('ewalletPayment', ewalletCallback(service, testOutcome(operation, body.amount) ?? {}, body));
      return { status: 200, body: overlay(example(service, operation), body) };
    },
    approveEwalletPayment: (_p, body) => resolveEwallet('approveEwalletPayment', body, 'COMPLETED'),
    declineEwalletPayment: (_p, body) => resolveEwallet('declineEwalletPayment', body, 'FAILED'),
  };

  const answer = (request: IncomingMessage, text: string): Answer => {
    if (request.url === '/sandbox/openapi.json') return { status: 200, body: document };
    const found = match(
      (request.method ?? 'GET').toUpperCase(),
      new URL(request.url ?? '/', 'http://fake.local').pathname,
    );
    if (found.kind !== 'found')
      return { status: 404, body: { error_code: 'NOT_FOUND', message: 'fake: no such path' } };
    const { operation } = found.value;
    if (request.headers.authorization !== expectedAuth)
      return { status: 401, body: { error_code: 'INVALID_API_KEY', message: 'fake: bad key' } };
    calls.set(operation.operationId, (calls.get(operation.operationId) ?? 0) + 1);
    const handler = handlers[operation.operationId];
    return handler
      ? handler(found.params, parse(text), operation)
      : {
          status: 500,
          body: { error_code: 'SERVER_ERROR', message: `fake: ${operation.operationId} is not implemented` },
        };
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const { status, body } = answer(request, Buffer.concat(chunks).toString('utf8'));
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    settings: () => settings,
    close: async () => {
      await sender.settle();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
