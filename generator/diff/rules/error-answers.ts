// The error semantics of operations that no JSON Schema keyword carries: `x-validation-error` and
// `x-malformed-body-error` (the status and code a schema violation or an unparsable body gets) and
// `x-error-triggers` (what makes the service answer each documented code). A generic tool sees none of
// these: a client that switches on API_VALIDATION_ERROR breaks when a violation starts answering another
// status or code, with no schema changed.
import type { JsonObject } from '@payments-contract/model/types';
import { child, deepEqual, isObject, member, show } from '../json.js';
import type { Finding, Located } from '../types.js';
import { explicit, findings } from '../verdicts.js';
import { matchedOperations } from './operations.js';

const answer = (node: unknown): string =>
  isObject(node as never)
    ? `${String((node as JsonObject).status)} ${String((node as JsonObject).error_code)}`
    : 'nothing stated';

function compareAnswer(
  subject: string,
  extension: 'x-validation-error' | 'x-malformed-body-error',
  old: Located,
  neu: Located,
): Finding[] {
  if (deepEqual(old.node, neu.node)) return [];
  const what = extension === 'x-validation-error' ? 'a request that breaks the schema' : 'a body that cannot be parsed';
  return findings(
    {
      rule: `${extension.slice(2)}-changed`,
      family: 'x-validation-error',
      old: old.pointer,
      new: neu.pointer,
      change: `${subject}: ${what} now gets ${answer(neu.node)} instead of ${answer(old.node)}.`,
    },
    explicit(
      ['client', 'breaking', `a client handling ${answer(old.node)} for it gets another answer`],
      ['server', 'breaking', `a server must answer ${answer(neu.node)}`],
    ),
  );
}

function compareTriggers(subject: string, old: Located, neu: Located): Finding[] {
  const out: Finding[] = [];
  const before = isObject(old.node) ? old.node : {};
  const after = isObject(neu.node) ? neu.node : {};
  for (const code of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[code];
    const is = after[code];
    const at = { old: child(old.pointer, code), new: child(neu.pointer, code) };
    const when = (trigger: unknown): string =>
      isObject(trigger as never) ? String((trigger as JsonObject).when) : '?';
    if (was === undefined) {
      out.push(
        ...findings(
          {
            rule: 'error-trigger-added',
            family: 'x-error-triggers',
            ...at,
            change: `${subject}: ${code} is now answered when ${when(is)} (${triggerDetail(is)}).`,
          },
          explicit(
            [
              'client',
              'potentially-breaking',
              `a request that met this condition got another answer before; it now gets ${code}`,
            ],
            ['server', 'breaking', `a server must detect the condition and answer ${code}`],
          ),
        ),
      );
    } else if (is === undefined) {
      out.push(
        ...findings(
          {
            rule: 'error-trigger-removed',
            family: 'x-error-triggers',
            ...at,
            change: `${subject}: ${code} is no longer answered when ${when(was)}.`,
          },
          explicit(
            [
              'client',
              'potentially-breaking',
              `a client that relied on ${code} to learn of this condition no longer gets it`,
            ],
            ['server', 'potentially-breaking', `a server that still answers ${code} departs from the contract`],
          ),
        ),
      );
    } else if (!deepEqual(withoutDescription(was), withoutDescription(is))) {
      out.push(
        ...findings(
          {
            rule: 'error-trigger-changed',
            family: 'x-error-triggers',
            ...at,
            change: `${subject}: what yields ${code} changed from ${triggerDetail(was)} to ${triggerDetail(is)}.`,
          },
          explicit(
            ['client', 'potentially-breaking', `the requests that get ${code} are not the same ones`],
            ['server', 'breaking', `a server must answer ${code} on the new condition`],
          ),
        ),
      );
    }
  }
  return out;
}

const withoutDescription = (trigger: unknown): JsonObject => {
  if (!isObject(trigger as never)) return {};
  const { description: _description, ...rest } = trigger as JsonObject;
  return rest;
};
const triggerDetail = (trigger: unknown): string => show(withoutDescription(trigger));

export function compareErrorAnswers(old: JsonObject, neu: JsonObject): Finding[] {
  return matchedOperations(old, neu).flatMap(([before, after]) => [
    ...compareAnswer(
      before.name,
      'x-validation-error',
      member(before.operation, 'x-validation-error'),
      member(after.operation, 'x-validation-error'),
    ),
    ...compareAnswer(
      before.name,
      'x-malformed-body-error',
      member(before.operation, 'x-malformed-body-error'),
      member(after.operation, 'x-malformed-body-error'),
    ),
    ...compareTriggers(
      before.name,
      member(before.operation, 'x-error-triggers'),
      member(after.operation, 'x-error-triggers'),
    ),
  ]);
}
