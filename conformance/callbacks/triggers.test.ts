import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createContract, loadContract, type Contract } from '../contract.js';
import { createHttpClient } from '../http.js';
import type { CheckContext } from '../types.js';
import { stateMachines } from '../workflows/machines.js';
import { deriveTriggers, type TriggerSource } from './triggers.js';

const bundled = loadContract();

function derive(
  contract: Contract,
  dashboard: boolean,
  sandbox = { offered: false, reason: 'target offers no sandbox control API (test)' },
): TriggerSource[] {
  const http = createHttpClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 10 });
  const context: CheckContext = {
    contract,
    http,
    options: { baseUrl: '', apiKey: 'k', profile: 'full', timeoutMs: 10, concurrency: 1, strict: false },
    observe: () => [],
    selected: () => true,
  };
  let n = 0;
  return deriveTriggers({
    context,
    callbackUrl: (w, k) => `http://r/callbacks/${w}/${k}`,
    dashboardReachesReceiver: dashboard,
    sandbox,
    newKey: () => `k${++n}`,
    supply: async () => ({ reason: 'not in this test' }),
  });
}

const usable = (sources: TriggerSource[]): string[] =>
  [...new Set(sources.filter((s) => !s.unavailable && s.events.length > 0).map((s) => s.webhook))].sort();

/** A copy of the bundled document changed by `edit`. */
function variant(edit: (doc: JsonObject) => void): Contract {
  const doc = structuredClone(bundled.doc);
  edit(doc);
  return createContract(doc);
}

describe('deriveTriggers on the bundled contract', () => {
  it('without the dashboard settings, uses only webhooks whose URL the request carries', () => {
    const byRequestField = bundled.model.webhooks
      .filter((w) => isObject(w.delivery.destination) && 'request_field' in w.delivery.destination)
      .map((w) => w.operationId);
    const sources = derive(bundled, false);
    expect(usable(sources).every((w) => byRequestField.includes(w))).toBe(true);
    for (const source of sources.filter((s) => s.unavailable?.includes('dashboard setting'))) {
      const setting = (bundled.webhook(source.webhook).delivery.destination as { dashboard_setting: string })
        .dashboard_setting;
      expect(source.unavailable).toContain(setting);
    }
  });

  it('turns every test-mode outcome that names a callback into one event expecting that outcome', () => {
    const sources = derive(bundled, true);
    for (const operation of bundled.model.operations.filter((o) => typeof o.testMode?.callback === 'string')) {
      const events = sources.filter((s) => s.via.startsWith(operation.operationId)).flatMap((s) => s.events);
      const outcomes = (operation.testMode?.outcomes as JsonObject[]) ?? [];
      // Every listed outcome, plus the default outcome for the example's own value.
      expect(events.length).toBe(outcomes.length + 1);
      for (const outcome of outcomes) {
        const event = events.find(
          (e) =>
            e.expect.every(
              ({ field, allowed }) => outcome[field] === undefined || allowed.includes(outcome[field] ?? null),
            ) && e.expect.length > 1,
        );
        expect(event, JSON.stringify(outcome)).toBeDefined();
      }
    }
  });

  it('fires state-machine transitions that send a callback, expecting the state they lead to', () => {
    const sources = derive(bundled, true);
    for (const machine of stateMachines(bundled).values()) {
      for (const source of sources.filter((s) => s.via.includes(`state machine ${machine.key}`))) {
        for (const event of source.events) {
          const states = machine.transitions.map((t) => t.to);
          expect(event.expect.flatMap((e) => e.allowed).every((state) => states.includes(String(state)))).toBe(true);
          expect(Object.keys(event.correlation).length).toBeGreaterThan(0);
        }
      }
    }
  });

  it('keys every event uniquely', () => {
    const keys = derive(bundled, true).flatMap((s) => s.events.map((e) => e.key));
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('leaves event-triggered transitions to the sandbox, with the reason it cannot be used', () => {
    const withEvents = [...stateMachines(bundled).values()].flatMap((m) =>
      m.transitions
        .filter((t) => t.trigger.event !== undefined)
        .flatMap((t) => t.effects.flatMap((e) => (e.callback ? [e.callback] : []))),
    );
    const sandbox = derive(bundled, true).filter((s) => s.via.startsWith('sandbox'));
    expect(sandbox.map((s) => s.webhook).sort()).toEqual([...new Set(withEvents)].sort());
    expect(sandbox.every((s) => s.unavailable === 'target offers no sandbox control API (test)')).toBe(true);
    // A control API whose contract the suite could not use: the reason is reported, nothing is fired.
    const offered = derive(bundled, true, { offered: true, reason: 'no control contract (test)' }).filter((s) =>
      s.via.startsWith('sandbox'),
    );
    expect(offered.length).toBeGreaterThan(0);
    expect(offered.every((s) => s.unavailable === 'no control contract (test)' && s.events.length === 0)).toBe(true);
  });
});

describe('deriveTriggers follows the contract when it changes', () => {
  it('loses a transition trigger whose test-mode selection is removed', () => {
    const before = derive(bundled, false).filter((s) => s.via.includes('state machine') && s.events.length > 0);
    expect(before.length).toBeGreaterThan(0);
    const acting = before.map((s) => s.via.split(' then ')[1]?.split(' ')[0] ?? '');
    const changed = variant((doc) => {
      for (const item of Object.values(doc.paths as JsonObject)) {
        for (const operation of Object.values(item as JsonObject))
          if (isObject(operation) && acting.includes(String(operation.operationId))) delete operation['x-test-mode'];
      }
    });
    expect(derive(changed, false).filter((s) => s.via.includes('state machine') && s.events.length > 0)).toEqual([]);
  });

  it('marks a request-field destination on another operation as unusable', () => {
    const moved: string[] = [];
    const changed = variant((doc) => {
      for (const item of Object.values(doc.webhooks as JsonObject)) {
        const post = (item as JsonObject).post as JsonObject;
        const delivery = post['x-delivery'] as JsonObject;
        if (isObject(delivery.destination) && 'request_field' in delivery.destination) {
          delivery.destination = { request_field: { operation: 'getBalance', field: 'callback_url' } };
          moved.push(String(post.operationId));
        }
      }
    });
    const sources = derive(changed, false).filter((s) => s.via.includes('state machine') && moved.includes(s.webhook));
    expect(sources.length).toBeGreaterThan(0);
    expect(sources.every((s) => s.events.length === 0 && /getBalance's callback_url/.test(s.unavailable ?? ''))).toBe(
      true,
    );
  });
});
