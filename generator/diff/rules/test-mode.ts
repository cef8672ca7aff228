// `x-test-mode` (per operation) and the control contract's root `x-test-modes` (per operationId): which
// test value gives which outcome. A value whose outcome changed breaks every merchant test suite that
// uses it, although no schema changed; adding an outcome for a value changes that value's outcome too
// (it completed by default before).
import type { Json, JsonObject } from '@payments-contract/model/types';
import { child, deepEqual, isObject, member, show } from '../json.js';
import type { Finding, Located } from '../types.js';
import { explicit, findings } from '../verdicts.js';
import { matchedOperations } from './operations.js';

/** Outcomes keyed by the value of the test mode's field. */
function outcomesOf(testMode: JsonObject): Map<string, { outcome: JsonObject; index: number }> {
  const field = typeof testMode.field === 'string' ? testMode.field : 'value';
  const outcomes = Array.isArray(testMode.outcomes) ? testMode.outcomes : [];
  return new Map(
    outcomes.flatMap((outcome, index) =>
      isObject(outcome)
        ? [[show(outcome[field]), { outcome, index }] as [string, { outcome: JsonObject; index: number }]]
        : [],
    ),
  );
}

const stripDescription = (value: Json | undefined): Json | undefined => {
  if (!isObject(value)) return value;
  const { description: _description, ...rest } = value;
  return rest;
};
const outcomeText = (outcome: Json | undefined): string => show(stripDescription(outcome));

const BOTH = (impact: string): ReturnType<typeof explicit> =>
  explicit(['client', 'breaking', impact], ['server', 'breaking', 'a server in test mode must give the new outcome']);

export function compareTestMode(subject: string, old: Located, neu: Located): Finding[] {
  const out: Finding[] = [];
  const before = isObject(old.node) ? old.node : undefined;
  const after = isObject(neu.node) ? neu.node : undefined;
  if (!before || !after) {
    if (before)
      out.push(
        ...findings(
          {
            rule: 'test-mode-removed',
            family: 'x-test-mode',
            old: old.pointer,
            new: neu.pointer,
            change: `${subject}: its test-mode behaviour is no longer stated.`,
          },
          explicit(
            ['client', 'breaking', 'tests that rely on its test values lose them'],
            ['server', 'non-breaking', 'a server is no longer held to it'],
          ),
        ),
      );
    if (after)
      out.push(
        ...findings(
          {
            rule: 'test-mode-added',
            family: 'x-test-mode',
            old: old.pointer,
            new: neu.pointer,
            change: `${subject}: its test-mode behaviour is now stated (${outcomesOf(after).size} test values).`,
          },
          explicit(
            ['client', 'non-breaking', 'a client may use its test values'],
            ['server', 'breaking', 'a server in test mode must give the stated outcomes'],
          ),
        ),
      );
    return out;
  }
  if (before.field !== after.field)
    out.push(
      ...findings(
        {
          rule: 'test-mode-field-changed',
          family: 'x-test-mode',
          old: child(old.pointer, 'field'),
          new: child(neu.pointer, 'field'),
          change: `${subject}: test outcomes are now chosen by ${show(after.field)} instead of ${show(before.field)}.`,
        },
        BOTH('every test value selects a different outcome'),
      ),
    );
  if (!deepEqual(before.default_outcome, after.default_outcome))
    out.push(
      ...findings(
        {
          rule: 'test-mode-default-outcome-changed',
          family: 'x-test-mode',
          old: child(old.pointer, 'default_outcome'),
          new: child(neu.pointer, 'default_outcome'),
          change: `${subject}: a test value with no outcome of its own now gives ${outcomeText(after.default_outcome)} instead of ${outcomeText(before.default_outcome)}.`,
        },
        BOTH('tests using an unlisted value see another outcome'),
      ),
    );
  const outcomesBefore = outcomesOf(before);
  const outcomesAfter = outcomesOf(after);
  const field = String(after.field ?? 'value');
  for (const value of new Set([...outcomesBefore.keys(), ...outcomesAfter.keys()])) {
    const was = outcomesBefore.get(value);
    const is = outcomesAfter.get(value);
    const at = {
      old: was ? child(child(old.pointer, 'outcomes'), was.index) : child(old.pointer, 'outcomes'),
      new: is ? child(child(neu.pointer, 'outcomes'), is.index) : child(neu.pointer, 'outcomes'),
    };
    if (was && is && deepEqual(stripDescription(was.outcome), stripDescription(is.outcome))) continue;
    const from = was ? outcomeText(was.outcome) : `the default ${outcomeText(before.default_outcome)}`;
    const to = is ? outcomeText(is.outcome) : `the default ${outcomeText(after.default_outcome)}`;
    out.push(
      ...findings(
        {
          rule: was && is ? 'test-value-outcome-changed' : was ? 'test-value-removed' : 'test-value-added',
          family: 'x-test-mode',
          ...at,
          change: `${subject}: the test ${field} ${value} now gives ${to} instead of ${from}.`,
        },
        BOTH(`a merchant test that uses ${field} ${value} sees another outcome`),
      ),
    );
  }
  return out;
}

export function compareTestModes(old: JsonObject, neu: JsonObject): Finding[] {
  const perOperation = matchedOperations(old, neu).flatMap(([before, after]) =>
    compareTestMode(before.name, member(before.operation, 'x-test-mode'), member(after.operation, 'x-test-mode')),
  );
  // The control contract states the sandbox's own test modes at its root, per service operationId.
  const rootOld: Located = { doc: old, node: old['x-test-modes'], pointer: '#/x-test-modes' };
  const rootNew: Located = { doc: neu, node: neu['x-test-modes'], pointer: '#/x-test-modes' };
  const ids = new Set([
    ...Object.keys(isObject(rootOld.node) ? rootOld.node : {}),
    ...Object.keys(isObject(rootNew.node) ? rootNew.node : {}),
  ]);
  const perRoot = [...ids].flatMap((id) =>
    compareTestMode(`${id} (x-test-modes)`, member(rootOld, id), member(rootNew, id)),
  );
  return [...perOperation, ...perRoot];
}
