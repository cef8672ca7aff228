// The isolation check: a merchant's objects exist for its own key in its own mode only. With a second
// merchant's key and the same merchant's other-mode key (RunOptions.isolation), the run's key first creates
// one object of every kind the contract lets a request address (an id in the path, a merchant reference in
// the query, a reference in the body: isolation-targets.ts), then each foreign key reads, changes and looks
// up those objects through every such operation. Each attempt must get the code the contract documents
// (`other_merchant`: 403 INVALID_PERMISSION_ERROR where the operation declares it, else its `not_found`
// code; in the other mode always `not_found`), no answer may carry the owner's object, and the owner reads
// its object back after every foreign write and finds unchanged what the write tried to change.
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { probeSandbox, type ControlApi } from '../callbacks/sandbox.js';
import { SECRET_VARIABLES } from '../command.js';
import { bodyExamples, buildRequest } from '../data/requests.js';
import { expectationFindings, finding } from '../expectations.js';
import type { Exchange, HttpClient, RequestSpec } from '../http.js';
import { mapPool } from '../pool.js';
import { outcomeOf } from '../results.js';
import type { Check, CheckContext, CheckResult, Finding } from '../types.js';
import { getPath, setPath, UniqueValues, uniquify } from '../workflows/data.js';
import { machineForResource, stateMachines } from '../workflows/machines.js';
import { CannotProvide, planProvision, type Provided } from '../workflows/provision.js';
import { bodyReferences, creatorOf, resourceKind, resourceOperations, statusesOf } from '../workflows/resources.js';
import { Scenario, ScenarioSkipped, StepFailed } from '../workflows/scenario.js';
import { DEFAULT_WORKFLOW_SETTINGS, freshBody, type WorkflowEnv } from '../workflows/steps.js';
import { addresses, codesFor, type Address, type Relation } from './isolation-targets.js';

/** A key that must not reach the owner's objects. */
export interface ForeignSide {
  relation: Relation;
  client: HttpClient;
  /** How findings name it. */
  label: string;
}

export const OPTION_HINT = {
  merchant: `a second merchant's key (--other-merchant-api-key or ${SECRET_VARIABLES['other-merchant-api-key']})`,
  mode: `the other mode's key (--other-mode-api-key or ${SECRET_VARIABLES['other-mode-api-key']})`,
} as const;

export function foreignSides(context: CheckContext): ForeignSide[] {
  const { otherMerchantKey, otherModeKey } = context.options.isolation ?? {};
  return [
    ...(otherMerchantKey
      ? [
          {
            relation: 'merchant' as const,
            client: context.http.withKey(otherMerchantKey, SECRET_VARIABLES['other-merchant-api-key']),
            label: "another merchant's key",
          },
        ]
      : []),
    ...(otherModeKey
      ? [
          {
            relation: 'mode' as const,
            client: context.http.withKey(otherModeKey, SECRET_VARIABLES['other-mode-api-key']),
            label: "the other mode's key",
          },
        ]
      : []),
  ];
}

interface Owned {
  objects: Provided;
  /** Why a kind could not be created, by kind. */
  failures: Map<string, string>;
}

const idOf = (value: JsonObject | undefined): string | undefined =>
  typeof value?.id === 'string' ? value.id : undefined;

/** A kind that no service operation creates, made through the sandbox control API's simulation that answers with it. */
async function simulate(
  scenario: Scenario,
  env: WorkflowEnv,
  kind: string,
  owned: Owned,
  planned: Set<string>,
  control: ControlApi | string,
): Promise<void> {
  if (typeof control === 'string') scenario.skip(`nothing in the contract creates a ${kind}, and ${control}`);
  const simulation =
    control.simulations.find((s) => resourceKind(control.contract, s.operation) === kind) ??
    scenario.skip(`nothing creates a ${kind}: neither the contract nor the control API`);
  const machine =
    stateMachines(scenario.contract).get(simulation.machine) ??
    scenario.skip(`the contract has no state machine ${simulation.machine}`);
  for (const action of planProvision(scenario.contract, machine.resource, planned))
    await action.run(scenario, env, owned.objects);
  const parameter = simulation.operation.parameters.find((p) => p.in === 'path');
  const subject =
    idOf(owned.objects.get(machine.resource)) ?? scenario.skip(`no ${machine.resource} to simulate a ${kind} on`);
  const answer = await control.call(
    simulation.operation.operationId,
    parameter ? { parameters: { [parameter.name]: subject } } : {},
  );
  if (!answer.ok || !isObject(answer.exchange.json as Json))
    scenario.skip(
      `the simulation that makes a ${kind} failed: ${answer.ok ? 'no object in its answer' : answer.reason}`,
    );
  owned.objects.set(kind, answer.exchange.json as JsonObject);
}

/** One object of every kind, created with the run's key (the owner), each after the objects it refers to. */
async function provideOwned(context: CheckContext, kinds: string[]): Promise<Owned> {
  const owned: Owned = { objects: new Map(), failures: new Map() };
  const scenario = new Scenario(context, 'isolation', []);
  const env: WorkflowEnv = { unique: new UniqueValues(context.contract), settings: DEFAULT_WORKFLOW_SETTINGS };
  const planned = new Set<string>();
  let control: ControlApi | string | undefined;
  for (const kind of kinds) {
    if (owned.objects.has(kind)) continue;
    try {
      const create = creatorOf(context.contract, kind);
      if (create && bodyReferences(context.contract, create).length === 0) {
        // Made directly, not through provision's create step: a created object need not carry an `id` (an
        // e-wallet payment is found by its merchant reference).
        const answer = await scenario.succeed(
          create.operationId,
          create,
          buildRequest(context.contract, create, { body: freshBody(scenario, env, create) }),
        );
        owned.objects.set(kind, scenario.object(create.operationId, answer));
        continue;
      }
      let actions;
      try {
        actions = planProvision(context.contract, kind, planned);
      } catch (error) {
        if (!(error instanceof CannotProvide)) throw error;
        if (control === undefined) {
          const status = await probeSandbox(context.http);
          control = status.control ?? status.reason ?? 'the target offers no control API';
        }
        await simulate(scenario, env, kind, owned, planned, control);
        continue;
      }
      for (const action of actions) await action.run(scenario, env, owned.objects);
      if (!owned.objects.has(kind)) owned.failures.set(kind, `the steps that create a ${kind} left none`);
    } catch (error) {
      if (error instanceof ScenarioSkipped) owned.failures.set(kind, error.reason);
      else if (error instanceof StepFailed)
        owned.failures.set(kind, scenario.findings.at(-1)?.message ?? `creating a ${kind} failed`);
      else throw error;
    }
  }
  return owned;
}

/** The owner's value for a parameter: the object's field of that name (a merchant reference, `payment_id`), else its id. */
function ownerValue(address: Address, object: JsonObject, name: string): string | undefined {
  if (address.in === 'body') return idOf(object);
  const value = getPath(object, name);
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  return address.in === 'path' ? idOf(object) : undefined;
}

/** The foreign request: the operation's valid request (fresh identifiers in a body) carrying the owner's values. */
function foreignRequest(
  context: CheckContext,
  unique: UniqueValues,
  address: Address,
  values: Record<string, string>,
): RequestSpec {
  const { contract } = context;
  const operation = address.operation;
  const example = bodyExamples(contract, operation)[0]?.value;
  const fresh = example === undefined ? undefined : uniquify(contract, operation, example, unique);
  if (address.in === 'body' && fresh !== undefined) {
    const body = Object.entries(values).reduce<Json>((current, [name, value]) => setPath(current, name, value), fresh);
    return buildRequest(contract, operation, { body });
  }
  return buildRequest(contract, operation, { parameters: values, ...(fresh === undefined ? {} : { body: fresh }) });
}

/** The owner's object as the owner reads it now (its read operation, else its lookup), or undefined when it has neither. */
async function readBack(
  context: CheckContext,
  kind: string,
  object: JsonObject,
): Promise<{ operation: OperationModel; value?: JsonObject } | undefined> {
  const creator = creatorOf(context.contract, kind);
  if (!creator) return undefined;
  const { read, lookup } = resourceOperations(context.contract, creator);
  const operation = read ?? lookup;
  if (!operation) return undefined;
  const parameters: Record<string, string> = {};
  for (const parameter of operation.parameters.filter((p) => p.in === (read ? 'path' : 'query'))) {
    const value = read ? idOf(object) : getPath(object, parameter.name);
    if (typeof value === 'string' || typeof value === 'number') parameters[parameter.name] = String(value);
  }
  const exchange = await context.http.send(buildRequest(context.contract, operation, { parameters }));
  context.observe(operation.operationId, exchange);
  const items: Json[] = Array.isArray(exchange.json) ? exchange.json : [exchange.json as Json];
  const value = items.find((item): item is JsonObject => isObject(item) && item.id === object.id);
  return { operation, ...(value ? { value } : {}) };
}

/** Whether an answer carries any of the owner's objects (by id) anywhere in its body. */
const carriesOwned = (exchange: Exchange, ids: string[]): boolean =>
  ids.some((id) => exchange.bodyText.includes(JSON.stringify(id)));

/** The fields a foreign write tried to set on the object, and its state field. */
function watchedFields(context: CheckContext, kind: string, request: RequestSpec): string[] {
  const state = machineForResource(context.contract, kind)?.field;
  let sent: Json = null;
  try {
    sent = request.body ? (JSON.parse(request.body.text) as Json) : null;
  } catch {
    sent = null;
  }
  return [...new Set([...(state ? [state] : []), ...(isObject(sent) ? Object.keys(sent) : [])])];
}

interface Attempt {
  findings: Finding[];
  notes: string[];
}

/** One foreign key against one address of the operation. */
async function attempt(
  context: CheckContext,
  unique: UniqueValues,
  address: Address,
  side: ForeignSide,
  owned: Owned,
): Promise<Attempt> {
  const operation = address.operation;
  const objects = address.names.map((name) => ({
    name,
    kind: address.kinds[name] as string,
    object: owned.objects.get(address.kinds[name] as string),
  }));
  const values: Record<string, string> = {};
  for (const { name, kind, object } of objects) {
    const value = object ? ownerValue(address, object, name) : undefined;
    if (value === undefined)
      return {
        findings: [],
        notes: [
          `${side.label} on ${address.in} ${name}: not tried, the owner's ${kind} could not be made (${owned.failures.get(kind) ?? `it has no ${name}`})`,
        ],
      };
    values[name] = value;
  }
  const request = foreignRequest(context, unique, address, values);
  const target = objects[0];
  const write = operation.method !== 'get' && address.in === 'path' && target?.object !== undefined;
  const before = write && target?.object ? await readBack(context, target.kind, target.object) : undefined;

  const exchange = await side.client.send(request);
  const findings = [...context.observe(operation.operationId, exchange)];
  const what = `${side.label} on the owner's ${objects.map((o) => o.kind).join(' and ')} (${address.in} ${address.names.join(', ')})`;
  const codes = codesFor(address, side.relation);
  const ownedIds = objects.map((o) => idOf(o.object)).filter((id): id is string => id !== undefined);
  if (exchange.status >= 200 && exchange.status < 300 && carriesOwned(exchange, ownedIds)) {
    findings.push(
      finding(
        side.client,
        exchange,
        `${what}: answered ${exchange.status} with the owner's object${codes.length > 0 ? `; the contract answers ${codes.join(' or ')}` : ''}`,
      ),
    );
  } else if (codes.length > 0) {
    const statuses = [...new Set(codes.flatMap((code) => statusesOf(operation, code)))];
    findings.push(...expectationFindings(side.client, exchange, { status: statuses, errorCode: codes }, what));
  }

  const notes: string[] = [];
  if (write && target?.object && before) {
    const after = await readBack(context, target.kind, target.object);
    const fields = watchedFields(context, target.kind, request).filter(
      (field) => before.value && field in before.value,
    );
    const changed = fields.filter(
      (field) => JSON.stringify(before.value?.[field]) !== JSON.stringify(after?.value?.[field]),
    );
    if (!after?.value)
      findings.push(
        finding(
          context.http,
          exchange,
          `${what}: afterwards the owner's ${target.kind} ${idOf(target.object) ?? ''} is gone (${before.operation.operationId} no longer finds it)`,
        ),
      );
    else if (changed.length > 0) {
      const shown = changed
        .map((field) => `${field} ${JSON.stringify(before.value?.[field])} -> ${JSON.stringify(after.value?.[field])}`)
        .join(', ');
      findings.push(
        finding(
          side.client,
          exchange,
          `${what}: changed the owner's ${target.kind} (read back with the owner's key: ${shown})`,
        ),
      );
    }
  } else if (write && target) {
    notes.push(
      `${side.label} on ${operation.operationId}: the owner's ${target.kind} has no read or lookup operation, so only the answer is judged`,
    );
  }
  return { findings, notes };
}

async function checkOperation(
  context: CheckContext,
  operation: OperationModel,
  list: Address[],
  sides: ForeignSide[],
  owned: Owned,
  unique: UniqueValues,
): Promise<CheckResult> {
  const findings: Finding[] = [];
  const notes: string[] = [];
  let cases = 0;
  for (const address of list) {
    for (const side of sides) {
      const result = await attempt(context, unique, address, side, owned);
      if (result.findings.length > 0 || !result.notes.some((note) => note.includes(': not tried,'))) cases++;
      findings.push(...result.findings);
      notes.push(...result.notes);
    }
  }
  const missing = (['merchant', 'mode'] as const).filter((relation) => !sides.some((s) => s.relation === relation));
  // A key not given leaves half the check undone: that makes the run incomplete, not a note to overlook.
  const unchecked = missing.map(
    (relation) => `across ${relation === 'merchant' ? 'merchants' : 'modes'}: not tried, give ${OPTION_HINT[relation]}`,
  );
  const extra = notes.length > 0 ? { notes } : {};
  if (cases === 0)
    return {
      check: 'isolation',
      subject: operation.operationId,
      outcome: 'skipped',
      cases: 0,
      findings,
      skippedReason: [...notes, ...unchecked].join('; '),
      ...extra,
    };
  return {
    check: 'isolation',
    subject: operation.operationId,
    outcome: outcomeOf(findings),
    cases,
    findings,
    ...extra,
    ...(unchecked.length > 0 ? { unchecked } : {}),
  };
}

export const isolation: Check = {
  name: 'isolation',
  description:
    "With another merchant's key and the other mode's key, every read, change and lookup of the owner's objects by id, merchant reference or body reference gets the documented code (other_merchant, else not_found), never the object, and changes nothing the owner reads back.",
  run: async (context) => {
    const found = addresses(context.contract);
    const selected = (operation: OperationModel): boolean => context.selected('isolation', operation.operationId);
    const operations = [
      ...new Set([...found.addresses.map((a) => a.operation), ...found.unknown.map((u) => u.operation)]),
    ].filter(selected);
    const sides = foreignSides(context);
    if (sides.length === 0) {
      const reason = `needs ${OPTION_HINT.merchant} and ${OPTION_HINT.mode}`;
      return operations.map((operation) => ({
        check: 'isolation',
        subject: operation.operationId,
        outcome: 'skipped',
        cases: 0,
        findings: [],
        skippedReason: reason,
      }));
    }
    const chosen = found.addresses.filter((a) => selected(a.operation));
    const kinds = [...new Set(chosen.flatMap((a) => Object.values(a.kinds)))].sort();
    const owned = await provideOwned(context, kinds);
    const unique = new UniqueValues(context.contract);
    return mapPool(operations, context.options.concurrency, async (operation) => {
      const result = await checkOperation(
        context,
        operation,
        chosen.filter((a) => a.operation === operation),
        sides,
        owned,
        unique,
      );
      const unknown = found.unknown.filter((u) => u.operation === operation).map((u) => `${u.reason}: not tried`);
      return unknown.length > 0 ? { ...result, notes: [...(result.notes ?? []), ...unknown] } : result;
    });
  },
};
