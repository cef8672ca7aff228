// Test-mode outcomes of a creation (`x-test-mode` on the operation that creates the machine's resource,
// e.g. e-wallet amounts that fail with a given failure code): one workflow per outcome, which creates the
// resource with the outcome's trigger value and polls the resource's lookup until it reaches a final state.
// A target that shows the outcome only by callback leaves the state where it was: that is reported as
// skipped (with the reason), never as passed.
import { setTimeout as sleep } from 'node:timers/promises';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';
import type { Contract } from '../contract.js';
import { buildRequest } from '../data/requests.js';
import { getPath, setPath, testModeOutcomes, testModeValue } from './data.js';
import { machineWithCreation } from './machines.js';
import type { Answer, Scenario } from './scenario.js';
import {
  freshBody,
  lookupRequest,
  creationOrSkip,
  resourceOrSkip,
  stateOf,
  type Workflow,
  type WorkflowEnv,
} from './steps.js';

interface Expectation {
  /** The value that selects the outcome; undefined for the default outcome (the example's own value). */
  value?: Json;
  outcome: JsonObject;
}

function expectations(contract: Contract, machineKey: string): Expectation[] {
  const create = machineWithCreation(contract, machineKey)?.create;
  if (!create?.testMode) return [];
  const listed: Expectation[] = testModeOutcomes(create).flatMap((outcome) => {
    const value = testModeValue(create.testMode ?? {}, outcome);
    return value === undefined ? [] : [{ value, outcome }];
  });
  const fallback = create.testMode.default_outcome;
  return isObject(fallback) ? [...listed, { outcome: fallback }] : listed;
}

async function pollUntilFinal(
  s: Scenario,
  env: WorkflowEnv,
  machineKey: string,
  body: Json,
): Promise<{ state: string | undefined; answer: Answer }> {
  const { machine, create } = creationOrSkip(s, machineKey);
  const { lookup } = resourceOrSkip(s, create, ['lookup']);
  const deadline = Date.now() + env.settings.pollTimeoutMs;
  for (;;) {
    const answer = await s.succeed('poll state', lookup, lookupRequest(s, lookup, body).request);
    const state = stateOf(machine, answer.value);
    if ((state !== undefined && machine.final.includes(state)) || Date.now() >= deadline) return { state, answer };
    await sleep(env.settings.pollIntervalMs);
  }
}

function outcomeWorkflow(subject: string, machineKey: string, expected: Expectation): Workflow {
  return {
    subject,
    steps: ['create', 'poll state'],
    script: async (s, env) => {
      const { machine, create } = creationOrSkip(s, machineKey);
      const field =
        typeof create.testMode?.field === 'string'
          ? create.testMode.field
          : s.notApplicable(`${create.operationId} has no test-mode field`);
      const example = freshBody(s, env, create);
      const listed = expectations(s.contract, machineKey).flatMap((e) => (e.value === undefined ? [] : [e.value]));
      if (expected.value === undefined && listed.includes(getPath(example, field) ?? null))
        return s.skip(
          `the example's ${field} selects a listed test-mode outcome, so the default outcome cannot be exercised`,
        );
      const body = expected.value === undefined ? example : setPath(example, field, expected.value);

      await s.succeed('create', create, buildRequest(s.contract, create, { body }));
      const wanted =
        typeof expected.outcome.status === 'string'
          ? expected.outcome.status
          : s.notApplicable('the test-mode outcome names no state');
      const { state, answer } = await pollUntilFinal(s, env, machineKey, body);
      if (state === undefined || !machine.final.includes(state)) {
        const callback =
          typeof create.testMode?.callback === 'string'
            ? ` (the ${create.testMode.callback} callback, checked by the callbacks check)`
            : '';
        return s.skip(
          `${machine.field ?? 'the state'} was still ${state ?? 'unknown'} after ${env.settings.pollTimeoutMs} ms of polling; on this target the outcome may be observable only by callback${callback}`,
        );
      }
      s.require(
        state === wanted,
        'poll state',
        answer.exchange,
        `${field} ${JSON.stringify(getPath(body, field))} should end ${wanted} (x-test-mode), ended ${state}`,
      );
      const failureCode = expected.outcome.failure_code;
      // The status answer may not carry the failure code; when it does, it must be the documented one.
      const value = answer.value;
      if (typeof failureCode === 'string' && isObject(value) && value.failure_code === undefined) {
        s.notes.push(
          `the ${machine.field ?? 'state'} answer carries no failure_code, so ${failureCode} is observable only by callback`,
        );
      } else if (typeof failureCode === 'string' && isObject(value)) {
        s.require(
          value.failure_code === failureCode,
          'poll state',
          answer.exchange,
          `failure_code is ${String(value.failure_code)}, x-test-mode documents ${failureCode}`,
        );
      }
    },
  };
}

/** One workflow per test-mode outcome of the machine's creation, plus the default outcome. */
export function testModeWorkflows(contract: Contract, prefix: string, machineKey: string): Workflow[] {
  const all = expectations(contract, machineKey);
  if (all.length === 0) {
    return [
      {
        subject: prefix,
        steps: [],
        script: async (s) => s.notApplicable(`the creation of ${machineKey} documents no test-mode outcomes`),
      },
    ];
  }
  return all.map((expected) =>
    outcomeWorkflow(
      `${prefix}:${expected.value === undefined ? 'default' : String(expected.value)}`,
      machineKey,
      expected,
    ),
  );
}
