// `x-decisions` (what the contract decided where the interface specification was silent or contradicted
// itself) and the document-level vendor extensions no other rule reads (the control contract's pointers
// for tools: x-clock-advance, x-callback-deliveries...). A decision whose wording of what the service
// does changes is worth a reviewer's look: the behaviour it states may have changed with no schema change.
import type { JsonObject } from '@payments-contract/model/types';
import { child, deepEqual, isObject, show } from '../json.js';
import type { Finding } from '../types.js';
import { explicit, findings } from '../verdicts.js';

function decisionsOf(doc: JsonObject): Map<string, { decision: JsonObject; index: number }> {
  const list = Array.isArray(doc['x-decisions']) ? doc['x-decisions'] : [];
  return new Map(
    list.flatMap((decision, index) =>
      isObject(decision) && typeof decision.id === 'string'
        ? [[decision.id, { decision, index }] as [string, { decision: JsonObject; index: number }]]
        : [],
    ),
  );
}

export function compareDecisions(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  const before = decisionsOf(old);
  const after = decisionsOf(neu);
  for (const [id, { decision, index }] of before) {
    const match = after.get(id);
    const pointers = {
      old: child('#/x-decisions', index),
      new: match ? child('#/x-decisions', match.index) : '#/x-decisions',
    };
    if (!match) {
      out.push(
        ...findings(
          {
            rule: 'decision-removed',
            family: 'x-decisions',
            ...pointers,
            change: `The decision ${id} (${show(decision.topic)}) was withdrawn.`,
          },
          explicit(
            ['client', 'potentially-breaking', 'behaviour a client relied on is no longer promised'],
            ['server', 'non-breaking', 'a server is no longer held to it'],
          ),
        ),
      );
    } else if (decision.decision !== match.decision.decision) {
      out.push(
        ...findings(
          {
            rule: 'decision-changed',
            family: 'x-decisions',
            old: child(pointers.old, 'decision'),
            new: child(pointers.new, 'decision'),
            change: `The decision ${id} (${show(decision.topic)}) now reads: ${show(match.decision.decision)}`,
          },
          explicit(
            ['client', 'potentially-breaking', 'the behaviour it states may have changed'],
            ['server', 'potentially-breaking', 'a server must behave as it now states'],
          ),
        ),
      );
    }
  }
  for (const [id, { decision, index }] of after) {
    if (before.has(id)) continue;
    out.push(
      ...findings(
        {
          rule: 'decision-added',
          family: 'x-decisions',
          old: '#/x-decisions',
          new: child('#/x-decisions', index),
          change: `A decision was added: ${id} (${show(decision.topic)}).`,
        },
        explicit(
          ['client', 'non-breaking', 'a client may rely on what it states'],
          ['server', 'potentially-breaking', 'a server must behave as it states'],
        ),
      ),
    );
  }
  return out;
}

/** Document-level extensions that have rules of their own. */
const READ_ELSEWHERE = new Set(['x-state-machines', 'x-decisions', 'x-test-modes']);

export function compareRootExtensions(old: JsonObject, neu: JsonObject): Finding[] {
  const names = new Set(
    [...Object.keys(old), ...Object.keys(neu)].filter((key) => key.startsWith('x-') && !READ_ELSEWHERE.has(key)),
  );
  return [...names].flatMap((name) => {
    const was = old[name];
    const is = neu[name];
    if (deepEqual(was, is)) return [];
    const pointer = child('#', name);
    if (was === undefined)
      return findings(
        {
          rule: 'extension-added',
          family: 'x-extensions',
          new: pointer,
          change: `The document now states ${name}: ${show(is)}.`,
        },
        explicit(
          ['client', 'non-breaking', 'tools may use it'],
          ['server', 'potentially-breaking', 'a server must do what it states'],
        ),
      );
    return findings(
      {
        rule: is === undefined ? 'extension-removed' : 'extension-changed',
        family: 'x-extensions',
        old: pointer,
        ...(is === undefined ? {} : { new: pointer }),
        change:
          is === undefined
            ? `The document no longer states ${name}.`
            : `${name} changed from ${show(was)} to ${show(is)}.`,
      },
      explicit(
        ['client', 'potentially-breaking', 'tools that read it see something else'],
        ['server', 'potentially-breaking', 'a server must do what it now states'],
      ),
    );
  });
}
