// Parameters (path, query, header) of operations and webhooks, matched by location and name (header
// names case-insensitively). A parameter of a webhook is sent by the service and read by the receiver.
import type { JsonObject } from '@payments-contract/model/types';
import { child, isObject, member, resolve } from '../json.js';
import { compareSchemas } from '../schema.js';
import type { Finding, Located } from '../types.js';
import { findings, verdictsOf, type Flow } from '../verdicts.js';
import { matchedOperations } from './operations.js';

interface ParameterAt {
  name: string;
  in: string;
  required: boolean;
  located: Located;
}

/** An operation's parameters, path-level ones first and overridden by the operation's own. */
export function parametersOf(pathItem: Located | undefined, operation: Located): Map<string, ParameterAt> {
  const byKey = new Map<string, ParameterAt>();
  for (const owner of [pathItem, operation]) {
    if (owner === undefined) continue;
    const list = resolve(member(owner, 'parameters'));
    if (!Array.isArray(list.node)) continue;
    list.node.forEach((_, index) => {
      const located = resolve(member(list, index));
      if (!isObject(located.node)) return;
      const name = String(located.node.name);
      const where = String(located.node.in);
      byKey.set(`${where}:${where === 'header' ? name.toLowerCase() : name}`, {
        name,
        in: where,
        required: located.node.required === true,
        located,
      });
    });
  }
  return byKey;
}

/** Compares the parameters of one operation (or webhook) and its counterpart. */
export function compareParameterSets(
  subject: string,
  flow: Flow,
  before: Map<string, ParameterAt>,
  after: Map<string, ParameterAt>,
  pointers: { old: string; new: string },
): Finding[] {
  const out: Finding[] = [];
  for (const [key, parameter] of before) {
    const match = after.get(key);
    const label = `${subject}: the ${parameter.in} parameter \`${parameter.name}\``;
    if (!match) {
      out.push(
        ...findings(
          {
            rule: 'parameter-removed',
            family: 'parameters',
            old: parameter.located.pointer,
            new: pointers.new,
            change: `${label} was removed.`,
          },
          verdictsOf(parameter.required ? 'removes' : 'removes-optional', flow),
        ),
      );
      continue;
    }
    if (!parameter.required && match.required) {
      out.push(
        ...findings(
          {
            rule: 'parameter-became-required',
            family: 'parameters',
            old: parameter.located.pointer,
            new: match.located.pointer,
            change: `${label} became required.`,
          },
          verdictsOf('narrows', flow),
        ),
      );
    } else if (parameter.required && !match.required) {
      out.push(
        ...findings(
          {
            rule: 'parameter-became-optional',
            family: 'parameters',
            old: parameter.located.pointer,
            new: match.located.pointer,
            change: `${label} became optional.`,
          },
          verdictsOf('widens', flow),
        ),
      );
    }
    compareSchemas(
      { flow, family: 'parameters', subject: label, out },
      member(parameter.located, 'schema'),
      member(match.located, 'schema'),
    );
  }
  for (const [key, parameter] of after) {
    if (before.has(key)) continue;
    const label = `${subject}: the ${parameter.in} parameter \`${parameter.name}\``;
    out.push(
      ...findings(
        {
          rule: parameter.required ? 'required-parameter-added' : 'optional-parameter-added',
          family: 'parameters',
          old: pointers.old,
          new: parameter.located.pointer,
          change: `${label} was added as ${parameter.required ? 'required' : 'optional'}.`,
        },
        verdictsOf(parameter.required ? 'narrows' : 'adds', flow),
      ),
    );
  }
  return out;
}

export function compareParameters(old: JsonObject, neu: JsonObject): Finding[] {
  return matchedOperations(old, neu).flatMap(([before, after]) =>
    compareParameterSets(
      before.name,
      'request',
      parametersOf(before.pathItem, before.operation),
      parametersOf(after.pathItem, after.operation),
      { old: child(before.operation.pointer, 'parameters'), new: child(after.operation.pointer, 'parameters') },
    ),
  );
}
