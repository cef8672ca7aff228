// The sandbox control API's contract ties its simulations to the service contract's state machines
// (`x-simulates`) and names where dashboard callback URLs are set (`x-callback-settings`); the
// conformance suite drives the sandbox through both, so each must point at something real.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decisionIds, describeDecisions } from './decisions.js';
import { createDocumentAjv, deref, isObject, listOperations, loadBundled, type JsonObject } from './document.js';
import { sandboxOpenapiPath } from '@payments-contract/contract';

const service = loadBundled();
const control = loadBundled(sandboxOpenapiPath);
const controlOperations = listOperations(control);
const machines = service['x-state-machines'] as JsonObject;
const extensionSchema = parse(
  readFileSync(fileURLToPath(new URL('../x-extensions.yaml', import.meta.url)), 'utf8'),
) as JsonObject;
const { ajv } = createDocumentAjv(service);
ajv.addSchema(extensionSchema);
const conforms = (definition: string, value: unknown): unknown[] => {
  const validate = ajv.getSchema(`https://payments-contract.local/x-extensions.yaml#/$defs/${definition}`);
  if (!validate) throw new Error(definition);
  return validate(value) ? [] : (validate.errors ?? []);
};
const simulations = controlOperations.filter((o) => o.operation['x-simulates'] !== undefined);

describe('the sandbox control contract', () => {
  it('has a simulation for every event-triggered transition of the service that sends a callback', () => {
    const wanted = new Set<string>();
    for (const [name, raw] of Object.entries(machines)) {
      for (const transition of ((deref(service, raw) as JsonObject).transitions ?? []) as JsonObject[]) {
        const trigger = transition.trigger as JsonObject;
        const effects = (transition.effects ?? []) as JsonObject[];
        if (typeof trigger.event === 'string' && effects.some((e) => e.callback !== undefined))
          wanted.add(`${name}:${trigger.event}`);
      }
    }
    const offered = new Set(
      simulations.map((o) => {
        const s = o.operation['x-simulates'] as JsonObject;
        return `${String(s.machine)}:${String(s.event)}`;
      }),
    );
    // Registration by the bank and a card expiring send no callback; approval timeouts are declines.
    expect(
      [...wanted].filter(
        (key) =>
          !offered.has(key) &&
          ![
            'ewalletPayment:authorization_window_elapsed',
            'ewalletPayment:provider_error',
            'fixedVirtualAccount:bank_registration_completed',
          ].includes(key),
      ),
    ).toEqual([]);
  });

  it.each(simulations.map((o) => [o.operationId, o] as const))(
    '%s simulates a transition the service contract has',
    (_id, entry) => {
      const simulates = entry.operation['x-simulates'] as JsonObject;
      expect(conforms('simulates', simulates)).toEqual([]);
      const machine = deref(service, machines[String(simulates.machine)]) as JsonObject;
      expect(isObject(machine), String(simulates.machine)).toBe(true);
      const transitions = (machine.transitions as JsonObject[]).filter(
        (t) => (t.trigger as JsonObject).event === simulates.event,
      );
      expect(
        transitions.length,
        `${String(simulates.machine)} has no ${String(simulates.event)} transition`,
      ).toBeGreaterThan(0);
      if (simulates.to !== undefined) expect(transitions.map((t) => t.to)).toContain(simulates.to);
    },
  );

  it.each(simulations.map((o) => [o.operationId, o] as const))(
    '%s: a body property left out for a field of the object (x-default-from) names a field that object has',
    (_id, entry) => {
      const machine = deref(
        service,
        machines[String((entry.operation['x-simulates'] as JsonObject).machine)],
      ) as JsonObject;
      const resource = deref(
        service,
        ((service.components as JsonObject).schemas as JsonObject)[String(machine.resource)],
      ) as JsonObject;
      const content = ((entry.operation.requestBody as JsonObject | undefined)?.content as JsonObject | undefined)?.[
        'application/json'
      ] as JsonObject | undefined;
      const body = content ? (deref(control, content.schema) as JsonObject) : {};
      for (const [name, raw] of Object.entries((body.properties ?? {}) as JsonObject)) {
        const from = (deref(control, raw) as JsonObject)['x-default-from'];
        if (from === undefined) continue;
        expect(conforms('defaultFrom', from), name).toEqual([]);
        expect(Object.keys(resource.properties as JsonObject), `${name} defaults to ${String(from)}`).toContain(from);
      }
    },
  );

  /** The properties of the JSON request body of the control operation a root extension names, checked against its definition. */
  const namedBodyProperties = (
    extension: string,
    definition: string,
  ): { named: JsonObject; properties: JsonObject } => {
    const named = control[extension] as JsonObject;
    expect(conforms(definition, named)).toEqual([]);
    const operation = controlOperations.find((o) => o.operationId === named.operation);
    expect(operation, String(named.operation)).toBeDefined();
    const body = deref(
      control,
      (((operation?.operation.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject)
        .schema,
    ) as JsonObject;
    return { named, properties: body.properties as JsonObject };
  };

  it('names the operation and body field that set the dashboard callback URLs', () => {
    const { named, properties } = namedBodyProperties('x-callback-settings', 'callbackSettings');
    expect(Object.keys(properties)).toContain(named.field);
  });

  it('names the operation and body field that move the clock, and the answer field that tells its time', () => {
    const { named, properties } = namedBodyProperties('x-clock-advance', 'clockAdvance');
    expect(properties[String(named.field)]).toMatchObject({ type: 'integer' });
    const operation = controlOperations.find((o) => o.operationId === named.operation);
    const answer = deref(
      control,
      (
        (((operation?.operation.responses as JsonObject)['200'] as JsonObject).content as JsonObject)[
          'application/json'
        ] as JsonObject
      ).schema,
    ) as JsonObject;
    expect((answer.properties as JsonObject)[String(named.now)]).toMatchObject({ type: 'string', format: 'date-time' });
  });

  it('names the operation and body fields that add money to a balance', () => {
    const { named, properties } = namedBodyProperties('x-balance-top-up', 'balanceTopUp');
    expect(properties[String(named.field)]).toMatchObject({ type: 'number' });
    expect(properties[String(named.account)]).toMatchObject({ type: 'string' });
  });

  it('names the callback deliveries list and the fields of its records the suite times retries from', () => {
    const deliveries = control['x-callback-deliveries'] as JsonObject;
    expect(conforms('callbackDeliveries', deliveries)).toEqual([]);
    const operation = controlOperations.find((o) => o.operationId === deliveries.operation);
    expect(operation?.method, String(deliveries.operation)).toBe('get');
    const list = deref(
      control,
      (
        (((operation?.operation.responses as JsonObject)['200'] as JsonObject).content as JsonObject)[
          'application/json'
        ] as JsonObject
      ).schema,
    ) as JsonObject;
    expect(list.type).toBe('array');
    const record = deref(control, list.items) as JsonObject;
    const properties = record.properties as JsonObject;
    expect(properties[String(deliveries.payload)]).toMatchObject({ type: 'object' });
    expect((properties[String(deliveries.attempts)] as JsonObject).type).toBe('array');
    const attempt = deref(control, (properties[String(deliveries.attempts)] as JsonObject).items) as JsonObject;
    expect((attempt.properties as JsonObject)[String(deliveries.attempt_time)]).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
  });

  it('counts every control operation in its one rate-limit group, control: 100 requests per second', () => {
    expect(conforms('rateLimits', control['x-rate-limits'])).toEqual([]);
    expect(control['x-rate-limits']).toMatchObject({ control: { limit: 100, window_seconds: 1 } });
    expect(Object.keys(control['x-rate-limits'] as JsonObject)).toEqual(['control']);
    expect(
      controlOperations
        .filter((entry) => entry.operation['x-rate-limit'] !== 'control')
        .map((entry) => entry.operationId),
    ).toEqual([]);
  });

  describe('automatic outcomes (x-test-modes, x-resolves, x-auto-progress-delay)', () => {
    const testModes = control['x-test-modes'] as JsonObject;
    const serviceOperations = listOperations(service);
    const settingsBody = namedBodyProperties('x-callback-settings', 'callbackSettings').properties;
    const resolving = Object.entries(settingsBody).flatMap(([name, raw]) => {
      const resolves = (deref(control, raw) as JsonObject)['x-resolves'];
      return resolves === undefined
        ? []
        : [{ name, property: deref(control, raw) as JsonObject, resolves: resolves as JsonObject }];
    });
    /** The machine whose creation transition the operation triggers. */
    const machineCreatedBy = (operationId: string): string | undefined =>
      Object.entries(machines).find(([, raw]) =>
        (((deref(service, raw) as JsonObject).transitions ?? []) as JsonObject[]).some(
          (t) => t.from === null && (t.trigger as JsonObject).operation === operationId,
        ),
      )?.[0];
    const bodyOf = (operationId: string): JsonObject => {
      const entry = serviceOperations.find((o) => o.operationId === operationId);
      return deref(
        service,
        (((entry?.operation.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject).schema,
      ) as JsonObject;
    };

    it('are well formed', () => {
      expect(conforms('testModes', testModes)).toEqual([]);
      for (const { name, resolves, property } of resolving) {
        expect(conforms('resolves', resolves), name).toEqual([]);
        expect(property.type, name).toBe('boolean');
        expect(Object.keys(machines), name).toContain(resolves.machine);
      }
    });

    it.each(Object.keys(testModes))(
      '%s: each documented value is a valid request value selecting one failure code of its callback, every code once',
      (operationId) => {
        const testMode = testModes[operationId] as JsonObject;
        const field = String(testMode.field);
        const fieldSchema = (bodyOf(operationId).properties as JsonObject)[field];
        expect(fieldSchema, `${operationId} has no body field ${field}`).toBeDefined();
        const webhook = Object.values(service.webhooks as JsonObject)
          .map((item) => (item as JsonObject).post as JsonObject)
          .find((post) => post.operationId === testMode.callback);
        expect(webhook, String(testMode.callback)).toBeDefined();
        const callbackBody = deref(
          service,
          (((webhook?.requestBody as JsonObject).content as JsonObject)['application/json'] as JsonObject).schema,
        ) as JsonObject;
        const failureCode = deref(service, (callbackBody.properties as JsonObject).failure_code) as JsonObject;
        const codes = (failureCode.enum ??
          (deref(service, (failureCode.anyOf as JsonObject[] | undefined)?.[0]) as JsonObject | undefined)?.enum) as
          | string[]
          | undefined;
        const outcomes = testMode.outcomes as JsonObject[];
        const validate = ajv.compile(deref(service, fieldSchema) as JsonObject);
        for (const outcome of outcomes)
          expect(validate(outcome[field]), `${field} ${JSON.stringify(outcome[field])}`).toBe(true);
        const values = outcomes.map((o) => JSON.stringify(o[field]));
        expect(values.filter((v, i) => values.indexOf(v) !== i)).toEqual([]);
        expect(outcomes.every((o) => o.status === 'FAILED')).toBe(true);
        expect(outcomes.map((o) => o.failure_code).sort()).toEqual(
          [...(codes ?? ['the callback has no failure_code enum'])].filter((c) => c !== null).sort(),
        );
        expect(testMode.default_outcome).toEqual({ status: 'COMPLETED' });
      },
    );

    it.each(Object.keys(testModes))('%s: a setting resolves the machine it creates', (operationId) => {
      const machine = machineCreatedBy(operationId);
      expect(machine, `${operationId} creates no machine's object`).toBeDefined();
      expect(resolving.map((r) => r.resolves.machine)).toContain(machine);
    });

    it('names the field of getSandbox holding the delay', () => {
      const named = control['x-auto-progress-delay'] as JsonObject;
      expect(conforms('autoProgressDelay', named)).toEqual([]);
      const operation = controlOperations.find((o) => o.operationId === named.operation);
      const info = deref(
        control,
        (
          (((operation?.operation.responses as JsonObject)['200'] as JsonObject).content as JsonObject)[
            'application/json'
          ] as JsonObject
        ).schema,
      ) as JsonObject;
      expect((info.properties as JsonObject)[String(named.field)]).toMatchObject({ type: 'integer' });
    });
  });
});

// The control API's own decisions; it also cites the service contract's through the schemas it shares.
describeDecisions(control, { conforms, listedElsewhere: decisionIds(service) });
