// What makes a target send each callback, derived from the contract:
// - test mode: an operation whose `x-test-mode` names a callback (e-wallet creation: each test amount
//   selects an outcome, and the callback must carry it);
// - state machines: an operation-triggered transition with a callback effect, from a state creation
//   reaches, either always taken (every transition the operation makes from there sends the callback) or
//   selected by a test-mode value whose error the transition answers (a direct debit's OTP test codes);
// - the sandbox control API's simulations, for transitions triggered by events outside the API
//   (simulations.ts), and the target's own test mode of what a bank finishes (sandbox-test-modes.ts).
// Where the callback goes comes from `x-delivery.destination`: a request field the suite fills with its
// receiver's URL, or a dashboard setting (usable when the suite could point it at the receiver through the
// sandbox control API, or when told the target sends there).
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, WebhookModel } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import type { Expected } from '../expectations.js';
import { testModeOutcomes, testModeValue } from '../workflows/data.js';
import { creationOperation, stateMachines, type StateMachine, type Transition } from '../workflows/machines.js';
import {
  destination,
  fired,
  prepareBody,
  withReferences,
  type CallbackEvent,
  type Change,
  type Expectation,
  type Fired,
  type TriggerEnv,
  type TriggerSource,
} from './events.js';
import { getAt, sameValue, schemaAt, setAt } from './fields.js';
import { finishingPhase, sandboxTestModeTriggers } from './sandbox-test-modes.js';
import { simulationTriggers } from './simulations.js';
import { createdId, firstExample, onlyPathParameter, runStep, type StepSpec } from './steps.js';

export type { CallbackEvent, Change, Expectation, Fired, Phase, TriggerEnv, TriggerSource } from './events.js';

export const callbacksOf = (t: Transition): string[] =>
  t.effects.flatMap((e) => (e.callback === undefined ? [] : [e.callback]));
const errorsOf = (t: Transition): string[] => t.effects.flatMap((e) => (e.error === undefined ? [] : [e.error]));

/** Operations whose test mode names the callback its outcomes arrive by. */
function testModeTriggers(env: TriggerEnv): TriggerSource[] {
  const { contract } = env.context;
  return contract.model.operations.flatMap((operation) => {
    const testMode = operation.testMode;
    if (typeof testMode?.callback !== 'string' || typeof testMode.field !== 'string') return [];
    const webhook = contract.webhook(testMode.callback);
    const field = testMode.field;
    const via = `${operation.operationId} in test mode (x-test-mode ${field})`;
    const target = destination(env, webhook, operation.operationId);
    if ('unavailable' in target)
      return [{ webhook: webhook.operationId, via, unavailable: target.unavailable, events: [] }];
    const base = firstExample(contract, operation.operationId);
    // A target that can turn its test mode's automatic outcome off has it on while these are fired.
    const machine = [...stateMachines(contract).values()].find((m) => creationOperation(m) === operation.operationId);
    const phase = env.sandbox.control && machine ? finishingPhase(env.sandbox.control, machine.key) : undefined;
    const listed = testModeOutcomes(operation);
    const fallback = getAt(base, field) as Json | undefined;
    const outcomes = listed.map((outcome) => ({ outcome, value: testModeValue(testMode, outcome) }));
    // The example's own value exercises the default outcome when no listed outcome claims it.
    if (isObject(testMode.default_outcome) && fallback !== undefined && !outcomes.some((o) => o.value === fallback))
      outcomes.unshift({ outcome: testMode.default_outcome, value: fallback });
    const events = outcomes.flatMap(({ outcome, value }): CallbackEvent[] => {
      if (value === undefined) return [];
      const key = env.newKey();
      const { body, correlation } = prepareBody(
        env,
        webhook,
        operation.operationId,
        setAt(base, field, value),
        key,
        target.field,
      );
      // The callback echoes the selecting value and carries the outcome's fields that its body declares.
      const carried: [string, Json][] = [
        [field, value],
        ...Object.entries(outcome).filter(([name]) => name !== 'description' && name !== 'value' && name !== field),
      ];
      const source = `x-test-mode of ${operation.operationId} for ${field} ${JSON.stringify(value)}`;
      const expect = carried
        .filter(([name]) => schemaAt(contract, webhook.bodySchema, name) !== undefined)
        .map(([name, allowed]) => ({ field: name, allowed: [allowed], source }));
      return [
        {
          key,
          webhook: webhook.operationId,
          label: `${operation.operationId} with ${field} ${JSON.stringify(value)}`,
          expect,
          correlation,
          ...(phase ? { phase } : {}),
          fire: async () => fired(env, await runStep(env.context, { operationId: operation.operationId, body })),
        },
      ];
    });
    return [{ webhook: webhook.operationId, via, events }];
  });
}

interface Selection {
  label: string;
  /** Body of the acting operation, from its first example. */
  body: JsonObject | undefined;
  expectAnswer?: Expected;
  to: string[];
}

/** Ways an operation can be made to take a callback-sending transition from the states creation reaches. */
function selections(
  contract: Contract,
  machine: StateMachine,
  operationId: string,
  webhook: string,
  starts: string[],
): Selection[] {
  const operation = contract.operation(operationId);
  const base = operation.body ? firstExample(contract, operationId) : undefined;
  const fromStarts = machine.transitions.filter(
    (t) => t.trigger.operation === operationId && t.from !== null && starts.includes(t.from),
  );
  const plain = fromStarts.filter((t) => errorsOf(t).length === 0);
  // Always taken: whichever plain transition applies from whichever start state, the callback is sent.
  if (starts.every((s) => plain.some((t) => t.from === s)) && plain.every((t) => callbacksOf(t).includes(webhook))) {
    return [
      {
        label: `${operationId} (every transition it makes from ${starts.join(' or ')} sends ${webhook})`,
        body: base,
        to: [...new Set(plain.map((t) => t.to))],
      },
    ];
  }
  const testMode = operation.testMode;
  const field = testMode?.field;
  if (testMode === undefined || typeof field !== 'string' || base === undefined) return [];
  return testModeOutcomes(operation).flatMap((outcome) => {
    const value = testModeValue(testMode, outcome);
    const code = outcome.error_code;
    const transition = fromStarts.find(
      (t) => callbacksOf(t).includes(webhook) && typeof code === 'string' && errorsOf(t).includes(code),
    );
    if (!transition || value === undefined || typeof outcome.status !== 'number' || typeof code !== 'string') return [];
    return [
      {
        label: `${operationId} with test-mode ${field} ${JSON.stringify(value)} (${code})`,
        body: setAt(base, field, value),
        expectAnswer: { status: outcome.status, errorCode: code },
        to: [transition.to],
      },
    ];
  });
}

function transitionTriggers(env: TriggerEnv): TriggerSource[] {
  const { contract } = env.context;
  return [...stateMachines(contract).values()].flatMap((machine) => {
    const creation = creationOperation(machine);
    const creations = machine.transitions.filter((t) => t.from === null);
    if (creation === undefined || creations.some((t) => t.trigger.operation !== creation)) return [];
    const starts = [...new Set(creations.map((t) => t.to))];
    const acting = [
      ...new Set(
        machine.transitions.flatMap((t) =>
          t.trigger.operation !== undefined && t.trigger.operation !== creation && callbacksOf(t).length > 0
            ? [t.trigger.operation]
            : [],
        ),
      ),
    ];
    return acting.flatMap((operationId) =>
      contract.model.webhooks.flatMap((webhook): TriggerSource[] => {
        const choices = selections(contract, machine, operationId, webhook.operationId, starts);
        if (choices.length === 0) return [];
        const via = `${creation} then ${operationId} (state machine ${machine.key})`;
        const target = destination(env, webhook, creation);
        if ('unavailable' in target)
          return [{ webhook: webhook.operationId, via, unavailable: target.unavailable, events: [] }];
        const events = choices.map((choice): CallbackEvent => {
          const key = env.newKey();
          const { body, correlation } = prepareBody(
            env,
            webhook,
            creation,
            firstExample(contract, creation),
            key,
            target.field,
          );
          const expect =
            machine.field === null || schemaAt(contract, webhook.bodySchema, machine.field) === undefined
              ? []
              : [{ field: machine.field, allowed: choice.to, source: `x-state-machines ${machine.key}` }];
          return {
            key,
            webhook: webhook.operationId,
            label: `${creation}, then ${choice.label}`,
            expect,
            correlation,
            fire: () => fireTransition(env, { machine, webhook, creation, operationId, choice }, body),
          };
        });
        return [{ webhook: webhook.operationId, via, events }];
      }),
    );
  });
}

/** One way to take an object through a callback-sending transition: create it, then act on it. */
interface Route {
  machine: StateMachine;
  webhook: WebhookModel;
  creation: string;
  operationId: string;
  choice: Selection;
}

async function fireTransition(env: TriggerEnv, route: Route, creationBody: JsonObject): Promise<Fired> {
  const { creation, operationId, choice } = route;
  const filled = await withReferences(env, creation, creationBody);
  if ('reason' in filled) return { fired: false, reason: filled.reason };
  const created = await runStep(env.context, { operationId: creation, body: filled.body });
  if (!created.ok) return fired(env, created);
  const id = createdId(created.exchange);
  const parameter = onlyPathParameter(env.context.contract, operationId);
  if (id === undefined || parameter === undefined)
    return { fired: false, reason: `${creation}'s answer has no id to give ${operationId}` };
  const step: StepSpec = {
    operationId,
    parameters: { [parameter]: id },
    ...(choice.body ? { body: choice.body } : {}),
    ...(choice.expectAnswer ? { expect: choice.expectAnswer } : {}),
  };
  const acted = await runStep(env.context, step);
  const result = fired(env, acted);
  return result.fired && acted.ok
    ? { ...result, change: stepChange(env.context.contract, route, created.exchange.json, acted.exchange.json) }
    : result;
}

/**
 * What the acting step's callback must carry: each value the step sent that the webhook's body declares and
 * the created object held otherwise (so that its callback, not the creation's, is the one carrying it), and
 * the state of the transition the step takes from the state the creation answered with, narrowed to the one
 * the step's own answer reports when the machine allows it.
 */
function stepChange(contract: Contract, route: Route, createdJson: unknown, answeredJson: unknown): Change {
  const { machine, webhook, operationId, choice } = route;
  const marks = Object.entries(choice.body ?? {}).flatMap(([field, value]): Expectation[] => {
    const schema = contract.deref(schemaAt(contract, webhook.bodySchema, field));
    if (field === machine.field || schema === undefined) return [];
    const instant = isObject(schema) && schema.format === 'date-time';
    return sameValue(getAt(createdJson, field), value, instant)
      ? []
      : [{ field, allowed: [value], source: `the ${operationId} request`, ...(instant ? { instant } : {}) }];
  });
  const earlier = machine.transitions.some((t) => t.from === null && callbacksOf(t).includes(webhook.operationId));
  const field = machine.field;
  if (field === null || schemaAt(contract, webhook.bodySchema, field) === undefined)
    return { step: operationId, marks, expect: [], earlier };
  const from = getAt(createdJson, field);
  const taken = [
    ...new Set(
      machine.transitions
        .filter((t) => t.trigger.operation === operationId && t.from === from && choice.to.includes(t.to))
        .map((t) => t.to),
    ),
  ];
  const allowed = taken.length > 0 ? taken : choice.to;
  const reported = getAt(answeredJson, field);
  const narrowed = typeof reported === 'string' && allowed.includes(reported) ? [reported] : allowed;
  const why = `x-state-machines ${machine.key}: ${operationId} from ${typeof from === 'string' ? from : choice.label}${narrowed.length < allowed.length ? `, whose answer reports ${String(reported)}` : ''}`;
  return { step: operationId, marks, expect: [{ field, allowed: narrowed, source: why }], earlier };
}

export function deriveTriggers(env: TriggerEnv): TriggerSource[] {
  return [
    ...testModeTriggers(env),
    ...sandboxTestModeTriggers(env),
    ...transitionTriggers(env),
    ...simulationTriggers(env),
  ];
}
