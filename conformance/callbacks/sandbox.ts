// The sandbox control API, when the target offers one: it makes happen what the service contract cannot
// cause through its own operations (a payer's transfer, the bank's answer, an end user's approval) and
// lets the suite point the dashboard callback settings at its receiver. Its own contract (the target's
// /sandbox/openapi.json, else the bundled control contract (@payments-contract/contract)) says which operation simulates
// which event (`x-simulates` on an operation), which setting holds the callback URLs
// (`x-callback-settings` at the root), which operation moves the clock (`x-clock-advance`) and which lists
// the callbacks sent with their attempts (`x-callback-deliveries`), which settings let objects finish by
// themselves (`x-resolves`), the request values selecting how (`x-test-modes`) and after how long
// (`x-auto-progress-delay`); the suite names neither an operation nor a setting of it.
import { readFileSync } from 'node:fs';
import { isObject, readTestMode } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel, TestModeModel } from '@payments-contract/contract/model/types';
import { createContract, type Contract } from '../contract.js';
import { expectationFindings, responseFindings } from '../expectations.js';
import type { HttpClient } from '../http.js';
import { buildRequest } from '../data/requests.js';
import type { StepResult } from './steps.js';
import { sandboxOpenapiPath } from '@payments-contract/contract';

export const SANDBOX_PROBE_PATH = '/sandbox';
/** Where a sandbox serves its control contract. */
export const CONTROL_CONTRACT_PATH = '/sandbox/openapi.json';
export const defaultControlSpecPath = sandboxOpenapiPath;

/** A control operation and the service state machine transition it makes happen (`x-simulates`). */
export interface Simulation {
  operation: OperationModel;
  machine: string;
  event: string;
  /** The states it leads to; empty when `x-simulates` leaves them to the machine. */
  to: string[];
}

export type SettingsChange = { ok: true; undo: () => Promise<void> } | { ok: false; reason: string };

/** One callback as the target's delivery records list it: the body sent and when each attempt started, in the target's time (ms). */
export interface RecordedDelivery {
  payload: unknown;
  attemptTimes: number[];
}

/**
 * One move of the target's clock the suite made: by how much, and the target's time it answered after it
 * (when the marker names the answer's field for it). The target time it skipped is `[now - ms, now]`.
 */
export interface ClockMove {
  ms: number;
  now?: number;
}

/** Moves the clock of the key's merchant and mode (`x-clock-advance`). */
export interface ControlClock {
  operation: OperationModel;
  advance: (milliseconds: number) => Promise<{ ok: true; now?: number } | { ok: false; reason: string }>;
  /**
   * Every move made through this API so far, oldest first: a retry's spacing is judged net of the suite's
   * own moves (callbacks/spacing.ts), whichever case made them.
   */
  moves: () => readonly ClockMove[];
  /** The clock's time (a move by 0), in epoch milliseconds, where the marker names the answer's field for it. */
  now: () => Promise<{ ms: number } | { reason: string }>;
}

/** Lists the callbacks the target sent, with their attempts (`x-callback-deliveries`). */
export interface ControlDeliveries {
  operation: OperationModel;
  /** Every delivery, or only a webhook's (by its operationId) when the marker names the filter (`webhook_filter`). */
  list: (webhook?: string) => Promise<{ records: RecordedDelivery[] } | { reason: string }>;
  /** Whether `list` can keep only one webhook's deliveries. */
  filters: boolean;
}

export interface ControlApi {
  contract: Contract;
  /** Where the control contract was read from, for reports. */
  source: string;
  simulations: Simulation[];
  /** A control request, judged against the control contract: a documented 2xx with a valid body, or the reason it is not. */
  call: (operationId: string, options?: { parameters?: Record<string, string>; body?: Json }) => Promise<StepResult>;
  /** The operation and body field `x-callback-settings` names, when the contract has them. */
  callbackSettings?: { operation: OperationModel; field: string };
  /** Changes settings through the callback settings' operation; `undo` puts back what they were. */
  changeSettings: (changes: JsonObject) => Promise<SettingsChange>;
  /** Points the dashboard callback settings at the URLs given, per setting. */
  configureCallbackUrls: (settings: readonly string[], urlFor: (setting: string) => string) => Promise<SettingsChange>;
  /** The spacing of callback attempts the target reports where `x-callback-retry-delay` says, or why there is none. */
  callbackRetryDelayMs: () => Promise<{ ms: number } | { reason: string }>;
  /** How long after their start the target finishes objects by itself, where `x-auto-progress-delay` says, or why it does not say. */
  autoProgressDelayMs: () => Promise<{ ms: number } | { reason: string }>;
  /** The target's own test mode of service operations (`x-test-modes`), per operationId, in the shape of `x-test-mode`. */
  testModes: Record<string, TestModeModel>;
  /** Present when the control contract names its clock's advance. */
  clock?: ControlClock;
  /** Present when the control contract names its delivery records and their fields. */
  deliveries?: ControlDeliveries;
}

export interface SandboxStatus {
  offered: boolean;
  /** Why simulations cannot be used (when they cannot). */
  reason?: string;
  control?: ControlApi;
}

const text = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** The control contract the target serves, else the bundled one. */
async function controlDocument(http: HttpClient): Promise<{ doc: JsonObject; source: string } | { reason: string }> {
  const served = await http.send({ method: 'GET', path: CONTROL_CONTRACT_PATH });
  if (
    served.status >= 200 &&
    served.status < 300 &&
    isObject(served.json as Json) &&
    typeof (served.json as JsonObject).openapi === 'string'
  ) {
    return { doc: served.json as JsonObject, source: `the target's ${CONTROL_CONTRACT_PATH}` };
  }
  try {
    return {
      doc: JSON.parse(readFileSync(defaultControlSpecPath, 'utf8')) as JsonObject,
      source: 'the bundled control contract (@payments-contract/contract)',
    };
  } catch (error) {
    return {
      reason: `no control contract: the target does not serve ${CONTROL_CONTRACT_PATH} and the bundled copy cannot be read (${error instanceof Error ? error.message : String(error)})`,
    };
  }
}

/** Every operation of the control contract that says which service transition it simulates. */
export function readSimulations(contract: Contract): Simulation[] {
  return contract.model.operations.flatMap((operation) => {
    const raw = contract.deref({ $ref: operation.pointer });
    const simulates = isObject(raw) ? raw['x-simulates'] : undefined;
    if (!isObject(simulates)) return [];
    const machine = text(simulates.machine);
    const event = text(simulates.event);
    const to = Array.isArray(simulates.to)
      ? simulates.to.flatMap((s) => (typeof s === 'string' ? [s] : []))
      : typeof simulates.to === 'string'
        ? [simulates.to]
        : [];
    return machine && event ? [{ operation, machine, event, to }] : [];
  });
}

/**
 * The operation and field a root extension of the control contract names (`{ operation, field }`):
 * `x-callback-settings` (the body field holding the callback URLs) or `x-callback-retry-delay` (the response
 * field holding the spacing of callback attempts, in ms).
 */
function operationFieldOf(
  contract: Contract,
  extension: 'x-callback-settings' | 'x-callback-retry-delay' | 'x-auto-progress-delay' | 'x-clock-advance',
): { operation: OperationModel; field: string } | undefined {
  const raw = contract.doc[extension];
  if (!isObject(raw) || typeof raw.operation !== 'string' || typeof raw.field !== 'string') return undefined;
  const operation = contract.model.operations.find((o) => o.operationId === raw.operation);
  return operation ? { operation, field: raw.field } : undefined;
}

/** The delivery records' operation and the fields of a record `x-callback-deliveries` names. */
function deliveriesOf(
  contract: Contract,
):
  | { operation: OperationModel; payload: string; attempts: string; attemptTime: string; webhookFilter?: string }
  | undefined {
  const raw = contract.doc['x-callback-deliveries'];
  if (!isObject(raw)) return undefined;
  const [operationId, payload, attempts, attemptTime] = [
    raw.operation,
    raw.payload,
    raw.attempts,
    raw.attempt_time,
  ].map(text);
  const operation = contract.model.operations.find((o) => o.operationId === operationId);
  const webhookFilter = text(raw.webhook_filter);
  return operation && payload && attempts && attemptTime
    ? { operation, payload, attempts, attemptTime, ...(webhookFilter ? { webhookFilter } : {}) }
    : undefined;
}

/** The records of a delivery list answer, or why they cannot be read (an attempt without a time, a record that is no object). */
export function readRecords(
  answer: Json | undefined,
  fields: { payload: string; attempts: string; attemptTime: string },
): { records: RecordedDelivery[] } | { reason: string } {
  if (!Array.isArray(answer)) return { reason: 'the answer is not a list of deliveries' };
  const records: RecordedDelivery[] = [];
  for (const record of answer) {
    const attempts = isObject(record) ? record[fields.attempts] : undefined;
    if (!isObject(record) || !Array.isArray(attempts)) return { reason: `a delivery has no ${fields.attempts} list` };
    const attemptTimes = attempts.map((attempt) =>
      isObject(attempt) && typeof attempt[fields.attemptTime] === 'string'
        ? Date.parse(attempt[fields.attemptTime] as string)
        : Number.NaN,
    );
    if (attemptTimes.some(Number.isNaN)) return { reason: `an attempt has no date-time ${fields.attemptTime}` };
    records.push({ payload: record[fields.payload], attemptTimes });
  }
  return { records };
}

/** For each changed key, the value it has now; a map is restored key by key (the settings operation merges maps). */
function previousValues(current: JsonObject | undefined, changes: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.entries(changes).map(([key, value]) => {
      const before = current?.[key];
      if (!isObject(value)) return [key, before ?? null];
      return [
        key,
        Object.fromEntries(Object.keys(value).map((name) => [name, isObject(before) ? (before[name] ?? null) : null])),
      ];
    }),
  );
}

export function createControlApi(http: HttpClient, contract: Contract, source: string): ControlApi {
  const call: ControlApi['call'] = async (operationId, options = {}) => {
    const operation = contract.operation(operationId);
    const exchange = await http.send(
      buildRequest(contract, operation, {
        ...(options.parameters ? { parameters: options.parameters } : {}),
        ...(options.body !== undefined ? { body: options.body } : {}),
      }),
    );
    if (exchange.failure && exchange.failure.kind !== 'not_json')
      return { ok: false, reason: `${operationId} (sandbox control API): ${exchange.failure.message}`, exchange };
    const success = operation.responses.map((r) => r.status).filter((status) => status >= 200 && status < 300);
    const what = `${operationId} (sandbox control API)`;
    const [wrongAnswer] = expectationFindings(http, exchange, { status: success }, what);
    if (wrongAnswer) return { ok: false, reason: wrongAnswer.message, exchange };
    // A documented status with a body off the control contract: what the suite would read from it is unreliable.
    const [offContract] = responseFindings(contract, http, operation, exchange, false);
    return offContract ? { ok: false, reason: `${what}: ${offContract.message}`, exchange } : { ok: true, exchange };
  };
  const callbackSettings = operationFieldOf(contract, 'x-callback-settings');
  // The current settings come from the GET on the same path, when the contract has one.
  const read = callbackSettings
    ? contract.model.operations.find((o) => o.method === 'get' && o.path === callbackSettings.operation.path)
    : undefined;

  const changeSettings: ControlApi['changeSettings'] = async (changes) => {
    if (!callbackSettings)
      return { ok: false, reason: 'the control contract names no settings operation (x-callback-settings)' };
    const current = read ? await call(read.operationId) : undefined;
    const before =
      current?.ok && isObject(current.exchange.json as Json) ? (current.exchange.json as JsonObject) : undefined;
    const changed = await call(callbackSettings.operation.operationId, { body: changes });
    if (!changed.ok) return { ok: false, reason: changed.reason };
    const restore = previousValues(before, changes);
    return {
      ok: true,
      undo: async () =>
        void (before ? await call(callbackSettings.operation.operationId, { body: restore }) : undefined),
    };
  };

  /** The milliseconds the operation and field a root extension names answer. */
  const millisecondsAt = (extension: 'x-callback-retry-delay' | 'x-auto-progress-delay', what: string) => {
    const named = operationFieldOf(contract, extension);
    return async (): Promise<{ ms: number } | { reason: string }> => {
      if (!named) return { reason: `the control contract names no ${what} (${extension})` };
      const answer = await call(named.operation.operationId);
      if (!answer.ok) return { reason: answer.reason };
      const ms = isObject(answer.exchange.json as Json) ? (answer.exchange.json as JsonObject)[named.field] : undefined;
      return typeof ms === 'number' && Number.isInteger(ms) && ms >= 0
        ? { ms }
        : { reason: `${named.operation.operationId} answered no whole number of milliseconds in ${named.field}` };
    };
  };
  const callbackRetryDelayMs = millisecondsAt('x-callback-retry-delay', 'retry delay');
  const autoProgressDelayMs = millisecondsAt('x-auto-progress-delay', 'delay of automatic outcomes');
  const declaredTestModes = contract.doc['x-test-modes'];
  const testModes = Object.fromEntries(
    Object.entries(isObject(declaredTestModes) ? declaredTestModes : {}).flatMap(([operationId, raw]) => {
      const mode = readTestMode(raw, `x-test-modes.${operationId}`);
      return mode ? [[operationId, mode]] : [];
    }),
  );

  const advance = operationFieldOf(contract, 'x-clock-advance');
  const marker = contract.doc['x-clock-advance'];
  const nowField = isObject(marker) ? text(marker.now) : undefined;
  const moves: ClockMove[] = [];
  /** The target's time in a move's answer, in epoch ms, when the marker names its field. */
  const answeredNow = (answer: Json | undefined): { ms: number } | { reason: string } => {
    if (nowField === undefined) return { reason: 'x-clock-advance names no answer field with the time (now)' };
    const value = isObject(answer ?? null) ? (answer as JsonObject)[nowField] : undefined;
    const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
    return Number.isNaN(ms)
      ? { reason: `${advance?.operation.operationId ?? 'x-clock-advance'} answered no time in ${nowField}` }
      : { ms };
  };
  const clock: ControlClock | undefined = advance && {
    operation: advance.operation,
    advance: async (milliseconds) => {
      const answer = await call(advance.operation.operationId, { body: { [advance.field]: milliseconds } });
      if (!answer.ok) return { ok: false, reason: answer.reason };
      const now = answeredNow(answer.exchange.json as Json | undefined);
      const move: ClockMove = { ms: milliseconds, ...('ms' in now ? { now: now.ms } : {}) };
      if (milliseconds > 0) moves.push(move);
      return { ok: true, ...(move.now === undefined ? {} : { now: move.now }) };
    },
    moves: () => moves,
    now: async () => {
      const answer = await call(advance.operation.operationId, { body: { [advance.field]: 0 } });
      return answer.ok ? answeredNow(answer.exchange.json as Json | undefined) : { reason: answer.reason };
    },
  };
  const recorded = deliveriesOf(contract);
  const deliveries: ControlDeliveries | undefined = recorded && {
    operation: recorded.operation,
    filters: recorded.webhookFilter !== undefined,
    list: async (webhook) => {
      const filter = recorded.webhookFilter;
      const answer = await call(
        recorded.operation.operationId,
        webhook !== undefined && filter !== undefined ? { parameters: { [filter]: webhook } } : {},
      );
      if (!answer.ok) return { reason: answer.reason };
      const read = readRecords(answer.exchange.json as Json | undefined, recorded);
      return 'reason' in read
        ? { reason: `${recorded.operation.operationId} (sandbox control API): ${read.reason}` }
        : read;
    },
  };

  return {
    contract,
    source,
    simulations: readSimulations(contract),
    ...(clock ? { clock } : {}),
    ...(deliveries ? { deliveries } : {}),
    callbackRetryDelayMs,
    autoProgressDelayMs,
    testModes,
    call,
    ...(callbackSettings ? { callbackSettings } : {}),
    changeSettings,
    configureCallbackUrls: (settings, urlFor) => {
      if (!callbackSettings)
        return Promise.resolve({
          ok: false,
          reason: 'the control contract names no callback settings (x-callback-settings)',
        });
      return changeSettings({
        [callbackSettings.field]: Object.fromEntries(settings.map((setting) => [setting, urlFor(setting)])),
      });
    },
  };
}

export async function probeSandbox(http: HttpClient): Promise<SandboxStatus> {
  const exchange = await http.send({ method: 'GET', path: SANDBOX_PROBE_PATH });
  const answer =
    exchange.failure && exchange.failure.kind !== 'not_json' ? exchange.failure.message : `answered ${exchange.status}`;
  if (exchange.status < 200 || exchange.status >= 300 || exchange.json === undefined) {
    return { offered: false, reason: `target offers no sandbox control API (GET ${SANDBOX_PROBE_PATH} ${answer})` };
  }
  const found = await controlDocument(http);
  if ('reason' in found) return { offered: true, reason: found.reason };
  let contract: Contract;
  try {
    contract = createContract(found.doc);
  } catch (error) {
    return {
      offered: true,
      reason: `the control contract from ${found.source} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const control = createControlApi(http, contract, found.source);
  return control.simulations.length > 0
    ? { offered: true, control }
    : {
        offered: true,
        reason: `the control contract from ${found.source} declares no simulation (x-simulates)`,
        control,
      };
}
