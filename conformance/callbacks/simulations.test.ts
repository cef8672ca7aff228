import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createContract, loadContract } from '../contract.js';
import { createHttpClient } from '../http.js';
import { controlDocument, SIMULATES } from '../tests/fakes/control-api.js';
import type { CheckContext } from '../types.js';
import { stateMachines } from '../workflows/machines.js';
import { createControlApi, readSimulations, type SandboxStatus } from './sandbox.js';
import { simulationBody } from './simulations.js';
import { deriveTriggers, type TriggerSource } from './triggers.js';

const service = loadContract();
const http = createHttpClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 10 });

/** The machines a boolean setting of the control contract's settings body resolves (`x-resolves`), read here without the suite's code. */
function resolvedMachines(control: ReturnType<typeof createContract>): string[] {
  const body = control.deref(control.operation('updateSettings').body?.schema) as JsonObject;
  return Object.values(body.properties as JsonObject).flatMap((raw) => {
    const resolves = (control.deref(raw) as JsonObject)['x-resolves'];
    return isObject(resolves) ? [String(resolves.machine)] : [];
  });
}

function sandboxWith(doc: JsonObject): SandboxStatus {
  return { offered: true, control: createControlApi(http, createContract(doc), 'the test control contract') };
}

function derive(sandbox: SandboxStatus): TriggerSource[] {
  const context: CheckContext = {
    contract: service,
    http,
    options: { baseUrl: '', apiKey: 'k', profile: 'full', timeoutMs: 10, concurrency: 1, strict: false },
    observe: () => [],
    selected: () => true,
  };
  let n = 0;
  return deriveTriggers({
    context,
    callbackUrl: (w, k) => `http://r/callbacks/${w}/${k}`,
    dashboardReachesReceiver: true,
    sandbox,
    newKey: () => `k${++n}`,
    supply: async () => ({ reason: 'not in this test' }),
  });
}

const simulated = (sources: TriggerSource[]): TriggerSource[] =>
  sources.filter((s) => s.via.startsWith('sandbox simulation ') && s.events.length > 0);

/** Every (machine, event) whose transition sends a callback, with the callbacks and target states. */
function eventTransitions(): { machine: string; event: string; webhook: string; to: string }[] {
  return [...stateMachines(service).values()].flatMap((machine) =>
    machine.transitions.flatMap((t) =>
      t.trigger.event === undefined
        ? []
        : t.effects.flatMap((e) =>
            e.callback ? [{ machine: machine.key, event: t.trigger.event ?? '', webhook: e.callback, to: t.to }] : [],
          ),
    ),
  );
}

describe('simulation triggers derived from x-simulates', () => {
  const sources = derive(sandboxWith(controlDocument()));

  it('reads every x-simulates of the control contract', () => {
    const control = createContract(controlDocument());
    expect(
      readSimulations(control)
        .map((s) => s.operation.operationId)
        .sort(),
    ).toEqual(Object.keys(SIMULATES).sort());
  });

  it('turns each simulated event-triggered callback transition into one event expecting the state x-simulates leads to', () => {
    const wanted = eventTransitions().filter((t) =>
      Object.values(SIMULATES).some((s) => s.machine === t.machine && s.event === t.event),
    );
    expect(wanted.length).toBeGreaterThan(0);
    for (const transition of wanted) {
      const matching = simulated(sources).filter(
        (s) => s.webhook === transition.webhook && s.via.includes(`(${transition.machine} ${transition.event})`),
      );
      expect(matching.length, JSON.stringify(transition)).toBeGreaterThan(0);
      const field = stateMachines(service).get(transition.machine)?.field;
      for (const event of matching.flatMap((s) => s.events)) {
        const state = event.expect.find((e) => e.field === field);
        // A machine whose state the callback does not carry has nothing to expect of it.
        if (state)
          expect(
            state.allowed.every((value) =>
              eventTransitions().some(
                (t) => t.machine === transition.machine && t.event === transition.event && t.to === value,
              ),
            ),
          ).toBe(true);
        // A dashboard URL carries no key of the suite's: a unique request value must tell the delivery apart.
        const destination = service.webhook(transition.webhook).delivery.destination;
        if (isObject(destination) && 'dashboard_setting' in destination)
          expect(Object.keys(event.correlation).length).toBeGreaterThan(0);
      }
    }
    const completes = simulated(sources).find((s) => s.via.startsWith('sandbox simulation completeDisbursement'))
      ?.events[0];
    expect(completes?.expect).toContainEqual(expect.objectContaining({ field: 'status', allowed: ['COMPLETED'] }));
  });

  it('names the events nothing simulates, as not triggerable, with the reason', () => {
    const covered = new Set(Object.values(SIMULATES).map((s) => `${String(s.machine)} ${String(s.event)}`));
    const uncovered = eventTransitions().filter((t) => !covered.has(`${t.machine} ${t.event}`));
    for (const transition of uncovered) {
      const source = sources.find(
        (s) => s.webhook === transition.webhook && s.unavailable !== undefined && s.via.includes(transition.event),
      );
      expect(source?.unavailable, JSON.stringify(transition)).toMatch(/simulates no such event \(x-simulates\)/);
    }
  });

  it('holds the objects of every machine a setting resolves (x-resolves) for their simulations, one phase per machine, and nothing else', () => {
    const control = createContract(controlDocument());
    const resolved = resolvedMachines(control);
    expect(resolved.sort()).toEqual(['directDebitPayment', 'disbursement', 'ewalletPayment']);
    for (const source of simulated(sources)) {
      const machine = /\((\w+) /.exec(source.via)?.[1] ?? '';
      expect(
        source.events.every((e) => (e.phase !== undefined) === resolved.includes(machine)),
        source.via,
      ).toBe(true);
      for (const event of source.events)
        if (event.phase)
          expect(event.phase.label, source.via).toMatch(/^sandbox setting \w+_auto_resolve off \(updateSettings\)$/);
    }
    const phases = new Set(simulated(sources).flatMap((s) => s.events.flatMap((e) => (e.phase ? [e.phase] : []))));
    expect(phases.size).toBe(resolved.length);
  });

  it('holds nothing when no setting says it resolves a machine', () => {
    const doc = controlDocument();
    const body = ((doc.components as JsonObject).schemas as JsonObject).SandboxSettingsUpdate as JsonObject;
    for (const property of Object.values(body.properties as JsonObject))
      if (isObject(property)) delete property['x-resolves'];
    expect(simulated(derive(sandboxWith(doc))).every((s) => s.events.every((e) => e.phase === undefined))).toBe(true);
  });

  it('follows the control contract: an operation without x-simulates triggers nothing', () => {
    const doc = controlDocument();
    for (const item of Object.values(doc.paths as JsonObject))
      for (const operation of Object.values(item as JsonObject))
        if (isObject(operation) && operation.operationId === 'completeDisbursement') delete operation['x-simulates'];
    const changed = simulated(derive(sandboxWith(doc)));
    expect(changed.some((s) => s.via.startsWith('sandbox simulation completeDisbursement'))).toBe(false);
    expect(changed.some((s) => s.via.startsWith('sandbox simulation failDisbursement'))).toBe(true);
  });

  it('reports why simulations cannot be used when the control contract has none', () => {
    const none = derive({ offered: true, reason: 'the control contract declares no simulation (x-simulates)' }).filter(
      (s) => s.via.startsWith('sandbox simulation'),
    );
    expect(none.length).toBeGreaterThan(0);
    expect(
      none.every(
        (s) => s.events.length === 0 && s.unavailable === 'the control contract declares no simulation (x-simulates)',
      ),
    ).toBe(true);
  });
});

describe('simulationBody', () => {
  const control = createContract(controlDocument());
  it('takes the fields the created object has, with values the simulation accepts, and the example for the rest', () => {
    const example = simulationBody(control, control.operation('declineEwalletPayment'), {});
    const body = simulationBody(control, control.operation('declineEwalletPayment'), {
      external_id: 'order-42',
      ewallet_type: 'NOT_A_WALLET',
      failure_code: null,
    });
    // ewallet_type and failure_code: values the simulation refuses, so the example's stand.
    expect(body).toEqual({ ...example, external_id: 'order-42' });
    expect(typeof body?.failure_code).toBe('string');
  });

  it('sends no body to an operation whose body is optional and whose example says nothing', () => {
    const operation = control.operation('completeDirectDebitPayment');
    expect(simulationBody(control, operation, { id: 'ddpy-1' })).toBeUndefined();
  });
});
