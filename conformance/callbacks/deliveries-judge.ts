// Judges every delivery the whole-run receiver got against what the run did (run-log.ts), from contract
// data only: each arrives by POST with the merchant's token and a body valid against its webhook's schema;
// it reports an object the run made with its own key (`x-callback-source.identity`), carries that object's
// values as the run saw them (`x-callback-source.fields`) and a state a transition sending it leads to
// (`x-state-machines`); no object gets more callbacks than the transitions the run caused, the
// simulations it made and the transitions the target may take by itself explain; every transition the run
// caused that sends a callback to the receiver brought one; an acknowledged callback never comes again
// (`x-delivery.redelivery`, `acknowledging_statuses`), and one the receiver refused on purpose is retried.
import { isObject } from '@payments-contract/contract/model';
import type {
  CallbackFieldSource,
  Json,
  JsonObject,
  OperationModel,
  WebhookModel,
} from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { Exchange, HttpClient } from '../http.js';
import type { CheckResult, Finding } from '../types.js';
import { outcomeOf } from '../results.js';
import { stateMachines, type StateMachine, type Transition } from '../workflows/machines.js';
import { getAt, sameValue } from './fields.js';
import { bodyIssues } from './identify.js';
import { byBody } from './judge.js';
import type { Delivery } from './receiver.js';
import type { LoggedExchange } from './run-log.js';
import type { Simulation } from './sandbox.js';
import { acknowledges } from './whole-run.js';

const EXCERPT = 300;

export interface JudgeInput {
  contract: Contract;
  http: Pick<HttpClient, 'curl'>;
  deliveries: readonly Delivery[];
  exchanges: readonly LoggedExchange[];
  /** The service operation a request went to. */
  serviceOperation: (method: string, url: string) => OperationModel | undefined;
  /** The simulation (control API) a request went to, when the target has them. */
  simulation: (method: string, url: string) => Simulation | undefined;
  /** The receiver's base URL: a request field holding a URL under it sends that callback to the receiver. */
  receiverUrl: string;
  /** Whether the dashboard callback settings point at the receiver for the whole run. */
  dashboardReaches: boolean;
  /** Whether a token was given to compare (else only its presence is judged). */
  tokenGiven: boolean;
  /** Deliveries the receiver refused on purpose (seq -> status). */
  failedOnPurpose: ReadonlyMap<number, number>;
  /** Whether the run brought on the retries of those (moved the target's clock past the retry interval and waited). */
  retriesBrought: boolean;
  waitMs: number;
  webhooks: readonly WebhookModel[];
}

/** An object as an answer to the run showed it. */
interface Snapshot {
  value: JsonObject;
  own: boolean;
  /** The variable of the other key that saw it, when not the run's own. */
  key?: string;
  operationId: string;
}

/** One transition the run made happen (or may have) that sends the webhook, for one object. */
interface Cause {
  label: string;
  must: boolean;
  /** The request that caused it, replayed in a finding. */
  exchange: Exchange;
}

const excerpt = (delivery: Delivery): string => {
  const text = delivery.bodyText.replace(/\s+/g, ' ');
  return text.length > EXCERPT ? `${text.slice(0, EXCERPT)}…` : text;
};

const failure = (message: string, extra: Partial<Finding> = {}): Finding => ({
  severity: 'failure',
  message,
  ...extra,
});

const is2xx = (status: number): boolean => status >= 200 && status < 300;

const callbackOf = (t: Transition, webhook: string): boolean => t.effects.some((e) => e.callback === webhook);

/** Every JSON object an answer holds: itself, or the items of a list. */
function objectsOf(json: unknown): JsonObject[] {
  if (Array.isArray(json)) return json.filter((item): item is JsonObject => isObject(item as Json));
  return isObject(json as Json) ? [json as JsonObject] : [];
}

/** The value of a callback field derived from the object (undefined when the object cannot give it). */
export function derive(object: JsonObject, source: CallbackFieldSource): Json | undefined {
  const value = getAt(object, source.from) as Json | undefined;
  if (source.withoutPrefix === undefined) return value;
  const prefix = getAt(object, source.withoutPrefix);
  return typeof value === 'string' && typeof prefix === 'string' && value.startsWith(prefix)
    ? value.slice(prefix.length)
    : undefined;
}

/** Absent and null are the same value here: a callback may spell "none" either way. */
const agrees = (expected: unknown, actual: unknown): boolean =>
  (expected ?? null) === null
    ? (actual ?? null) === null
    : sameValue(
        expected,
        actual,
        typeof expected === 'string' && !Number.isNaN(Date.parse(expected)) && /T\d/.test(expected),
      );

function identityKey(webhook: WebhookModel, values: (name: string) => unknown): string | undefined {
  const source = webhook.source;
  if (!source) return undefined;
  const parts = source.identity.map(values);
  return parts.some((part) => part === undefined || part === null) ? undefined : JSON.stringify(parts);
}

const describeIdentity = (webhook: WebhookModel, json: unknown): string =>
  (webhook.source?.identity ?? []).map((field) => `${field} ${JSON.stringify(getAt(json, field))}`).join(', ');

/** An exchange of the run with the service operation or simulation it went to. */
interface Located extends LoggedExchange {
  operation?: OperationModel;
  simulation?: Simulation;
}

function locate(input: JudgeInput): Located[] {
  return input.exchanges.map((logged) => {
    const { method, url } = logged.exchange.request;
    const operation = input.serviceOperation(method, url);
    const simulation = operation ? undefined : input.simulation(method, url);
    return { ...logged, ...(operation ? { operation } : {}), ...(simulation ? { simulation } : {}) };
  });
}

/** The snapshots of the run, service answers only (a control API listing of deliveries would explain every callback by itself). */
function snapshotsOf(located: readonly Located[]): Snapshot[] {
  return located.flatMap(({ exchange, sender, operation }) => {
    if (!is2xx(exchange.status) || !operation) return [];
    return objectsOf(exchange.json).map((value) => ({
      value,
      own: sender.own,
      ...(sender.own || sender.key === undefined ? {} : { key: sender.key }),
      operationId: operation.operationId,
    }));
  });
}

/** The webhook's identity of each snapshot that has one. */
function keyed(webhook: WebhookModel, snapshots: readonly Snapshot[]): Map<string, Snapshot[]> {
  const byKey = new Map<string, Snapshot[]>();
  for (const snapshot of snapshots) {
    const key = identityKey(webhook, (name) =>
      derive(snapshot.value, webhook.source?.fields[name] as CallbackFieldSource),
    );
    if (key !== undefined) byKey.set(key, [...(byKey.get(key) ?? []), snapshot]);
  }
  return byKey;
}

/** Per path template, the pattern that takes its only parameter out of a URL (undefined: not one parameter). */
const pathPatterns = new Map<string, RegExp | undefined>();

/** The value of the request's only path parameter: the id of the object an operation acts on. */
function pathId(operation: { path: string }, url: string): string | undefined {
  if (!pathPatterns.has(operation.path)) {
    const one = [...operation.path.matchAll(/\{([^}]+)\}/g)].length === 1;
    pathPatterns.set(
      operation.path,
      one
        ? new RegExp(
            `${operation.path
              .split(/\{[^}]+\}/)
              .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
              .join('([^/]+)')}/?$`,
          )
        : undefined,
    );
  }
  const match = pathPatterns.get(operation.path)?.exec(new URL(url).pathname);
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
}

interface ObjectCauses {
  causes: Cause[];
  states: Set<string>;
  reachesReceiver: boolean;
}

/** What the run did to each object of the webhook's machine, keyed by the object's identity. */
function causesOf(
  input: JudgeInput,
  webhook: WebhookModel,
  machine: StateMachine,
  located: readonly Located[],
  own: ReadonlyMap<string, Snapshot[]>,
): Map<string, ObjectCauses> {
  const byKey = new Map<string, ObjectCauses>();
  const keyOf = (object: JsonObject): string | undefined =>
    identityKey(webhook, (name) => derive(object, webhook.source?.fields[name] as CallbackFieldSource));
  const entry = (key: string): ObjectCauses => {
    const found = byKey.get(key) ?? { causes: [], states: new Set<string>(), reachesReceiver: false };
    byKey.set(key, found);
    return found;
  };
  /** The object an operation acts on is the one the run saw with the request's path parameter among its values (its id). */
  const byValue = new Map<unknown, string>();
  for (const [key, snapshots] of own) {
    for (const snapshot of snapshots) {
      const state = machine.field === null ? undefined : getAt(snapshot.value, machine.field);
      if (typeof state === 'string') entry(key).states.add(state);
      for (const value of Object.values(snapshot.value))
        if (typeof value === 'string' && !byValue.has(value)) byValue.set(value, key);
    }
  }
  const keyById = (id: string | undefined): string | undefined => (id === undefined ? undefined : byValue.get(id));
  const destination = webhook.delivery.destination;
  const requestField = 'request_field' in destination ? destination.request_field : undefined;
  const answered = new Set<string>();
  const created = new Set<string>();
  for (const { exchange, sender, operation, simulation } of located) {
    if (!sender.own) continue;
    const { url } = exchange.request;
    if (operation) {
      const taken = machine.transitions.filter((t) => t.trigger.operation === operation.operationId);
      if (taken.length === 0) continue;
      const code = isObject(exchange.json as Json) ? (exchange.json as JsonObject).error_code : undefined;
      const creations = taken.filter((t) => t.from === null);
      if (is2xx(exchange.status) && creations.length > 0) {
        for (const object of objectsOf(exchange.json)) {
          const key = keyOf(object);
          if (key === undefined || created.has(key)) continue;
          created.add(key);
          const state = machine.field === null ? undefined : getAt(object, machine.field);
          const candidates = creations.filter(
            (t) => t.effects.every((e) => e.error === undefined) && (state === undefined || t.to === state),
          );
          const target = entry(key);
          const requested =
            requestField?.operation === operation.operationId && typeof requestField.field === 'string'
              ? getAt(parseBody(exchange.request.body), requestField.field)
              : undefined;
          target.reachesReceiver = requestField
            ? typeof requested === 'string' && requested.startsWith(input.receiverUrl)
            : input.dashboardReaches;
          if (candidates.some((t) => callbackOf(t, webhook.operationId)))
            target.causes.push({
              label: `${operation.operationId} (to ${candidates.map((t) => t.to).join(' or ')})`,
              must: candidates.every((t) => callbackOf(t, webhook.operationId)),
              exchange,
            });
        }
        continue;
      }
      const key = keyById(pathId(operation, url));
      if (key === undefined) continue;
      // An answer the target gave before (a replay) is not another change.
      const seen = `${operation.operationId} ${exchange.status} ${exchange.bodyText}`;
      if (answered.has(seen)) continue;
      answered.add(seen);
      const state =
        machine.field !== null && isObject(exchange.json as Json) ? getAt(exchange.json, machine.field) : undefined;
      const applies = is2xx(exchange.status)
        ? taken.filter(
            (t) =>
              t.from !== null &&
              t.effects.every((e) => e.error === undefined) &&
              (state === undefined || t.to === state),
          )
        : taken.filter((t) => t.from !== null && typeof code === 'string' && t.effects.some((e) => e.error === code));
      if (applies.some((t) => callbackOf(t, webhook.operationId))) {
        entry(key).causes.push({
          label: `${operation.operationId} answered ${exchange.status}${typeof code === 'string' ? ` ${code}` : ''}`,
          must: applies.every((t) => callbackOf(t, webhook.operationId)),
          exchange,
        });
      }
      continue;
    }
    if (!simulation || simulation.machine !== machine.key || !is2xx(exchange.status)) continue;
    const key = keyById(pathId(simulation.operation, url));
    const applies = machine.transitions.filter(
      (t) => t.trigger.event === simulation.event && (simulation.to.length === 0 || simulation.to.includes(t.to)),
    );
    if (key !== undefined && applies.some((t) => callbackOf(t, webhook.operationId)))
      entry(key).causes.push({
        label: `${simulation.operation.operationId} (simulates ${simulation.event})`,
        must: applies.every((t) => callbackOf(t, webhook.operationId)),
        exchange,
      });
  }
  return byKey;
}

function parseBody(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/**
 * How many callbacks of the webhook the target may send an object by itself (events and times no request
 * caused): one per such transition from a state the object was seen in, the ones into final states
 * together once (only one of them can happen).
 */
function spontaneous(machine: StateMachine, webhook: string, states: ReadonlySet<string>): number {
  const seen = states.size > 0 ? states : new Set([machine.initial]);
  const open = machine.transitions.filter(
    (t) => t.trigger.operation === undefined && t.from !== null && seen.has(t.from) && callbackOf(t, webhook),
  );
  const toFinal = open.filter((t) => machine.final.includes(t.to));
  return open.length - toFinal.length + (toFinal.length > 0 ? 1 : 0);
}

/** Findings of one delivery on its own: method, token, body schema. */
function deliveryFindings(input: JudgeInput, webhook: WebhookModel, delivery: Delivery): Finding[] {
  const at = `${webhook.operationId} delivery ${delivery.seq + 1}`;
  const findings: Finding[] = [];
  const add = (message: string, schemaPath?: string): void =>
    void findings.push(
      failure(`${at}: ${message}`, { bodyExcerpt: excerpt(delivery), ...(schemaPath ? { schemaPath } : {}) }),
    );
  if (delivery.method !== 'POST') add(`sent with ${delivery.method}, not POST`);
  const token = delivery.token[webhook.tokenHeader];
  if (token === 'missing') add(`no ${webhook.tokenHeader} header`);
  if (token === 'mismatch')
    add(`the ${webhook.tokenHeader} header is not this merchant's callback token for this mode`);
  if (delivery.tooLarge) add('the body is larger than the receiver accepts');
  else if (delivery.json === undefined) add('the body is not JSON');
  else
    for (const error of bodyIssues(input.contract, webhook.operationId, delivery.json))
      add(
        `body does not match the ${webhook.name} schema: ${error.instancePath || '(body)'} ${error.message ?? error.keyword}`,
        error.schemaPath,
      );
  return findings;
}

/** Findings about the attempts of one callback: none after an acknowledged one, a refused one retried, no more than x-delivery's attempts. */
function attemptFindings(
  input: JudgeInput,
  webhook: WebhookModel,
  attempts: readonly Delivery[],
  unchecked: string[],
): { findings: Finding[]; cases: number } {
  const findings: Finding[] = [];
  let cases = 0;
  const [first] = attempts;
  if (!first) return { findings, cases };
  const label = `${webhook.operationId} callback first received as delivery ${first.seq + 1}`;
  const acknowledged = attempts.findIndex((d) => acknowledges(webhook, d.answered));
  if (webhook.deliveryRules.redeliveryOnlyAfterFailure && acknowledged >= 0 && acknowledged < attempts.length - 1) {
    const ack = attempts[acknowledged] as Delivery;
    findings.push(
      failure(
        `${label}: sent again ${attempts.length - 1 - acknowledged} time(s) after the receiver acknowledged it with ${ack.answered} (x-delivery.acknowledging_statuses ${webhook.deliveryRules.acknowledgingStatuses.minimum}-${webhook.deliveryRules.acknowledgingStatuses.maximum}; only an attempt that was not acknowledged is retried, x-delivery.redelivery)`,
        { bodyExcerpt: excerpt(first) },
      ),
    );
  }
  const limit = typeof webhook.delivery.attempts === 'number' ? webhook.delivery.attempts : undefined;
  if (limit !== undefined && attempts.length > limit)
    findings.push(
      failure(`${label}: ${attempts.length} attempts; x-delivery.attempts is ${limit}`, {
        bodyExcerpt: excerpt(first),
      }),
    );
  for (const [index, attempt] of attempts.entries()) {
    const refused = input.failedOnPurpose.get(attempt.seq);
    if (refused === undefined) continue;
    if (attempts.length > index + 1) cases++;
    else if (input.retriesBrought) {
      cases++;
      findings.push(
        failure(
          `${label}: the receiver answered ${refused}, which does not acknowledge, and it was never retried; x-delivery says up to ${String(limit)} attempts ${String(webhook.delivery.retry_interval_seconds)} s apart`,
          { bodyExcerpt: excerpt(first) },
        ),
      );
    } else
      unchecked.push(
        `${label}: answered ${refused} on purpose; its retry could not be brought on within the run (no clock to move)`,
      );
  }
  return { findings, cases };
}

/** The results per webhook, plus one for deliveries that are no webhook of the contract. */
export function judgeDeliveries(input: JudgeInput): { results: CheckResult[]; missing: number } {
  let missing = 0;
  const machines = stateMachines(input.contract);
  const located = locate(input);
  const snapshots = snapshotsOf(located);
  const results: CheckResult[] = [];
  for (const webhook of input.webhooks) {
    const findings: Finding[] = [];
    const notes: string[] = [];
    const unchecked: string[] = [];
    let cases = 0;
    const deliveries = input.deliveries.filter((d) => d.identified.webhook === webhook.operationId);
    for (const delivery of deliveries) findings.push(...deliveryFindings(input, webhook, delivery));
    const grouped = byBody(deliveries);
    for (const attempts of grouped) {
      const judged = attemptFindings(input, webhook, attempts, unchecked);
      findings.push(...judged.findings);
      cases += judged.cases;
    }
    const source = webhook.source;
    const machine = source ? machines.get(source.machine) : undefined;
    if (!source || !machine) {
      unchecked.push(
        `${webhook.operationId} has no x-callback-source naming a state machine: its deliveries cannot be matched to what the run did`,
      );
      cases += grouped.length;
      results.push(resultOf(webhook.operationId, findings, cases, notes, unchecked));
      continue;
    }
    const own = keyed(
      webhook,
      snapshots.filter((s) => s.own),
    );
    const others = keyed(
      webhook,
      snapshots.filter((s) => !s.own),
    );
    const objects = causesOf(input, webhook, machine, located, own);
    const stateField = machine.field;
    const sends = machine.transitions.filter((t) => callbackOf(t, webhook.operationId));
    const arrived = new Map<string, number>();
    for (const attempts of grouped) {
      const first = attempts[0] as Delivery;
      const json = first.json;
      if (!isObject(json as Json)) continue;
      cases++;
      const body = json as JsonObject;
      const at = `${webhook.operationId} delivery ${first.seq + 1}`;
      const key = identityKey(webhook, (name) => body[name]);
      const seen = key === undefined ? [] : (own.get(key) ?? []);
      if (seen.length === 0) {
        const [other] = key === undefined ? [] : (others.get(key) ?? []);
        findings.push(
          failure(
            other
              ? `${at} reports an object (${describeIdentity(webhook, body)}) the run made or saw only with another key (${other.key ?? "a key not the run's own"}): another merchant's or mode's callback sent to this merchant's receiver`
              : `${at} matches nothing the run did: no object the run created or read has ${describeIdentity(webhook, body)} (x-callback-source.identity)`,
            { bodyExcerpt: excerpt(first) },
          ),
        );
        continue;
      }
      arrived.set(key as string, (arrived.get(key as string) ?? 0) + 1);
      // The snapshot that agrees on the most fields is the one the callback reports (creation or a later change).
      const compared = Object.entries(source.fields).filter(([name]) => body[name] !== undefined);
      const disagreements = seen
        .map((snapshot) => ({
          snapshot,
          wrong: compared.filter(([name, from]) => !agrees(derive(snapshot.value, from), body[name])),
        }))
        .sort((a, b) => a.wrong.length - b.wrong.length)[0];
      for (const [name, from] of disagreements?.wrong ?? []) {
        const expected = derive((disagreements as { snapshot: Snapshot }).snapshot.value, from);
        findings.push(
          failure(
            `${at}: ${name} is ${JSON.stringify(body[name])}; derived from the object's ${from.from}${from.withoutPrefix ? ` without its ${from.withoutPrefix} prefix` : ''} (as ${(disagreements as { snapshot: Snapshot }).snapshot.operationId} answered it) it is ${JSON.stringify(expected ?? null)}${from.decision ? ` (decision ${from.decision})` : ''}`,
            { bodyExcerpt: excerpt(first) },
          ),
        );
      }
      if (stateField !== null && body[stateField] !== undefined && !sends.some((t) => t.to === body[stateField])) {
        findings.push(
          failure(
            `${at}: ${stateField} ${JSON.stringify(body[stateField])}, but x-state-machines ${machine.key} lists no transition to it that sends ${webhook.operationId} (only to ${[...new Set(sends.map((t) => t.to))].join(', ')})`,
            { bodyExcerpt: excerpt(first) },
          ),
        );
      }
    }
    for (const [key, object] of objects) {
      const count = arrived.get(key) ?? 0;
      const must = object.causes.filter((c) => c.must).length;
      const most = object.causes.length + spontaneous(machine, webhook.operationId, object.states);
      const label = `the object with ${JSON.parse(key)
        .map((v: unknown, i: number) => `${source.identity[i] as string} ${JSON.stringify(v)}`)
        .join(', ')}`;
      if (count > most) {
        findings.push(
          failure(
            `${count} distinct ${webhook.operationId} callbacks for ${label}; what the run did explains at most ${most} (${object.causes.map((c) => c.label).join('; ') || 'nothing it caused'}${most > object.causes.length ? '; and what the target may do by itself' : ''}, x-state-machines ${machine.key})`,
            object.causes[0] ? { curl: input.http.curl(object.causes[0].exchange) } : {},
          ),
        );
      }
      if (must > 0 && object.reachesReceiver) {
        cases++;
        if (count < must) {
          missing++;
          const owed = object.causes.filter((c) => c.must);
          findings.push(
            failure(
              `${label}: the run caused ${owed.map((c) => c.label).join('; ')}, which x-state-machines ${machine.key} says send(s) ${webhook.operationId}; ${count} of ${must} arrived within ${input.waitMs} ms`,
              owed[0] ? { curl: input.http.curl(owed[0].exchange) } : {},
            ),
          );
        }
      }
    }
    if (!input.dashboardReaches && 'dashboard_setting' in webhook.delivery.destination) {
      unchecked.push(
        `the dashboard setting ${webhook.delivery.destination.dashboard_setting} does not point at the receiver: a missing ${webhook.operationId} callback cannot be told`,
      );
    }
    if (!input.tokenGiven)
      notes.push(`the ${webhook.tokenHeader} value was not compared (no callback token given), only its presence`);
    notes.push(`${deliveries.length} delivery(ies) of ${grouped.length} callback(s) judged`);
    results.push(resultOf(webhook.operationId, findings, cases, notes, unchecked));
  }
  const unknown = input.deliveries.filter((d) => d.identified.webhook === undefined);
  if (unknown.length > 0) {
    results.push(
      resultOf(
        '(no webhook)',
        unknown.map((d) =>
          failure(
            `delivery ${d.seq + 1} to ${d.path} is no webhook of the contract (by its URL, its event field or its body)`,
            { bodyExcerpt: excerpt(d) },
          ),
        ),
        unknown.length,
        [],
        [],
      ),
    );
  }
  return { results, missing };
}

function resultOf(
  subject: string,
  findings: Finding[],
  cases: number,
  notes: string[],
  unchecked: string[],
): CheckResult {
  const seen = new Set<string>();
  const unique = findings.filter((f) => !seen.has(f.message) && Boolean(seen.add(f.message)));
  return {
    check: 'callback_deliveries',
    subject,
    outcome: outcomeOf(unique),
    cases,
    findings: unique,
    ...(notes.length > 0 ? { notes } : {}),
    ...(unchecked.length > 0 ? { unchecked } : {}),
  };
}
