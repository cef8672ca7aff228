// Callbacks of the target's own test mode (`x-test-modes` of its control contract): a creation whose outcome
// a bank gives in production (a disbursement, a direct debit payment) finishes by itself on the target,
// each documented request value selecting a failure code and any other value completing. For each value,
// the suite creates the object with it (its references provided, its confirmation made, as a direct
// debit's OTP), lets it finish inside a phase that turns on the settings resolving its machine
// (`x-resolves`), and expects the callback to carry the outcome's fields its body declares.
import { isObject } from '@payments-contract/contract/model';
import type { Json } from '@payments-contract/contract/model/types';
import { testModeOutcomes, testModeValue } from '../workflows/data.js';
import { creationOperation, stateMachines } from '../workflows/machines.js';
import {
  destination,
  prepareBody,
  type CallbackEvent,
  type Phase,
  type TriggerEnv,
  type TriggerSource,
} from './events.js';
import { getAt, schemaAt, setAt } from './fields.js';
import type { ControlApi } from './sandbox.js';
import { createConfirmed, settingsPhase } from './simulations.js';
import { firstExample } from './steps.js';

/** The settings phase letting the machine's objects finish, which also brings their time on by moving the target's clock when its control contract says how. */
export function finishingPhase(control: ControlApi, machine: string): Phase | undefined {
  const phase = settingsPhase(control, [machine], true);
  if (!phase) return undefined;
  phase.finishing ??= {
    bringOn: async () => {
      const delay = await control.autoProgressDelayMs();
      // Without a clock to move or a delay to move it by, the objects finish in the target's own time.
      if (control.clock && 'ms' in delay) await control.clock.advance(delay.ms);
    },
  };
  return phase;
}

export function sandboxTestModeTriggers(env: TriggerEnv): TriggerSource[] {
  const control = env.sandbox.control;
  if (!control) return [];
  const { contract } = env.context;
  const machines = [...stateMachines(contract).values()];
  return Object.entries(control.testModes).flatMap(([operationId, testMode]): TriggerSource[] => {
    const operation = contract.model.operations.find((o) => o.operationId === operationId);
    const machine = machines.find((m) => creationOperation(m) === operationId);
    if (!operation || !machine || typeof testMode.callback !== 'string' || typeof testMode.field !== 'string')
      return [];
    const webhook = contract.webhook(testMode.callback);
    const field = testMode.field;
    const via = `${operationId} in the target's test mode (x-test-modes ${field} of ${control.source})`;
    const target = destination(env, webhook, operationId);
    if ('unavailable' in target)
      return [{ webhook: webhook.operationId, via, unavailable: target.unavailable, events: [] }];
    const phase = finishingPhase(control, machine.key);
    if (!phase)
      return [
        {
          webhook: webhook.operationId,
          via,
          unavailable: `no setting of ${control.source} says it lets ${machine.key} objects finish by themselves (x-resolves)`,
          events: [],
        },
      ];
    const base = firstExample(contract, operationId);
    const outcomes = testModeOutcomes({ ...operation, testMode }).map((outcome) => ({
      outcome,
      value: testModeValue(testMode, outcome),
    }));
    // The example's own value exercises the default outcome when no listed outcome claims it.
    const fallback = getAt(base, field) as Json | undefined;
    if (isObject(testMode.default_outcome) && fallback !== undefined && !outcomes.some((o) => o.value === fallback))
      outcomes.unshift({ outcome: testMode.default_outcome, value: fallback });
    const events = outcomes.flatMap(({ outcome, value }): CallbackEvent[] => {
      if (value === undefined) return [];
      const key = env.newKey();
      const { body, correlation } = prepareBody(
        env,
        webhook,
        operationId,
        setAt(base, field, value),
        key,
        target.field,
      );
      const source = `x-test-modes of ${control.source} for ${operationId} ${field} ${JSON.stringify(value)}`;
      const carried: [string, Json][] = [
        [field, value],
        ...Object.entries(outcome).filter(([name]) => name !== 'description' && name !== 'value' && name !== field),
      ];
      const expect = carried
        .filter(([name]) => schemaAt(contract, webhook.bodySchema, name) !== undefined)
        .map(([name, allowed]) => ({ field: name, allowed: [allowed], source }));
      return [
        {
          key,
          webhook: webhook.operationId,
          label: `${operationId} with ${field} ${JSON.stringify(value)}, finishing by itself`,
          expect,
          correlation,
          phase,
          fire: async () => (await createConfirmed(env, machine, operationId, machine.initial, body)).fired,
        },
      ];
    });
    return [{ webhook: webhook.operationId, via, events }];
  });
}
