import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { JsonObject } from '@payments-contract/contract/model/types';
import { createContract, loadContract } from '../contract.js';
import { createHttpClient } from '../http.js';
import type { CheckContext } from '../types.js';
import { createControlApi, defaultControlSpecPath, type SandboxStatus } from './sandbox.js';
import { deriveTriggers, type TriggerSource } from './triggers.js';

const service = loadContract();
const http = createHttpClient({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 10 });
const bundled = (): JsonObject => JSON.parse(readFileSync(defaultControlSpecPath, 'utf8')) as JsonObject;

function derive(doc: JsonObject): TriggerSource[] {
  const sandbox: SandboxStatus = {
    offered: true,
    control: createControlApi(http, createContract(doc), 'the test control contract'),
  };
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

const ofTestModes = (sources: TriggerSource[]): TriggerSource[] =>
  sources.filter((s) => s.via.includes("in the target's test mode"));

describe("callbacks of the target's own test mode (x-test-modes)", () => {
  const testModes = bundled()['x-test-modes'] as Record<string, JsonObject>;

  it.each(Object.keys(testModes))(
    '%s: one event per documented value and one for the default, each expecting the outcome its callback declares',
    (operationId) => {
      const testMode = testModes[operationId] as JsonObject;
      const field = String(testMode.field);
      const [source, ...others] = ofTestModes(derive(bundled())).filter((s) => s.via.startsWith(`${operationId} `));
      expect(others).toEqual([]);
      expect(source?.unavailable).toBeUndefined();
      const outcomes = testMode.outcomes as JsonObject[];
      expect(source?.events).toHaveLength(outcomes.length + 1);
      for (const outcome of outcomes) {
        const event = source?.events.find((e) => e.label.includes(`${field} ${JSON.stringify(outcome[field])},`));
        expect(event?.expect, JSON.stringify(outcome)).toEqual(
          expect.arrayContaining([
            expect.objectContaining({ field: 'status', allowed: ['FAILED'] }),
            expect.objectContaining({ field: 'failure_code', allowed: [outcome.failure_code] }),
          ]),
        );
      }
      expect(
        source?.events.filter((e) => e.expect.some((x) => x.field === 'status' && x.allowed[0] === 'COMPLETED')),
      ).toHaveLength(1);
    },
  );

  it('fires them inside one phase per machine that turns its settings on and brings their time on', () => {
    const events = ofTestModes(derive(bundled())).flatMap((s) => s.events);
    const phases = new Set(events.map((e) => e.phase));
    expect(phases.size).toBe(Object.keys(testModes).length);
    for (const phase of phases) {
      expect(phase?.label).toMatch(/^sandbox setting \w+_auto_resolve on \(updateSettings\)$/);
      expect(phase?.finishing).toBeDefined();
    }
  });

  it('derives nothing from a control contract without x-test-modes', () => {
    const doc = bundled();
    delete doc['x-test-modes'];
    expect(ofTestModes(derive(doc))).toEqual([]);
  });

  it('says why, when no setting resolves the machine', () => {
    const doc = bundled();
    const body = ((doc.components as JsonObject).schemas as JsonObject).SandboxSettingsUpdate as JsonObject;
    for (const property of Object.values(body.properties as JsonObject))
      if (isObject(property)) delete property['x-resolves'];
    const sources = ofTestModes(derive(doc));
    expect(sources.length).toBe(Object.keys(testModes).length);
    for (const source of sources) expect(source.unavailable).toMatch(/x-resolves/);
  });
});
