// Request bodies of operations: whether one is required, its media types and its schema (compared with
// the request flow: a tightened bound breaks clients, a relaxed one obliges servers).
import type { JsonObject } from '@payments-contract/model/types';
import { entriesOf, isObject, member, resolve } from '../json.js';
import { compareSchemas } from '../schema.js';
import type { Finding, Located } from '../types.js';
import { findings, verdictsOf, type Flow } from '../verdicts.js';
import { matchedOperations } from './operations.js';

/** Compares two request bodies (of an operation, or of a webhook with the callback flow). */
export function compareBodies(
  subject: string,
  flow: Flow,
  family: 'request-bodies' | 'webhooks',
  before: Located,
  after: Located,
): Finding[] {
  const out: Finding[] = [];
  const old = resolve(before);
  const neu = resolve(after);
  if (!isObject(old.node) && !isObject(neu.node)) return out;
  const label = `${subject} ${flow === 'callback' ? 'callback body' : 'request body'}`;
  if (!isObject(old.node) || !isObject(neu.node)) {
    const added = isObject(neu.node);
    const required = added
      ? neu.node !== undefined && isObject(neu.node) && neu.node.required === true
      : isObject(old.node) && old.node.required === true;
    out.push(
      ...findings(
        {
          rule: added ? 'request-body-added' : 'request-body-removed',
          family,
          old: old.pointer,
          new: neu.pointer,
          change: `${subject}: the request body was ${added ? `added${required ? ' as required' : ''}` : 'removed'}.`,
        },
        verdictsOf(added ? (required ? 'narrows' : 'adds') : 'removes', flow),
      ),
    );
    return out;
  }
  if (old.node.required !== true && neu.node.required === true)
    out.push(
      ...findings(
        {
          rule: 'request-body-became-required',
          family,
          old: old.pointer,
          new: neu.pointer,
          change: `${label} became required.`,
        },
        verdictsOf('narrows', flow),
      ),
    );
  if (old.node.required === true && neu.node.required !== true)
    out.push(
      ...findings(
        {
          rule: 'request-body-became-optional',
          family,
          old: old.pointer,
          new: neu.pointer,
          change: `${label} became optional.`,
        },
        verdictsOf('widens', flow),
      ),
    );
  const mediaOld = new Map(entriesOf(member(old, 'content')));
  const mediaNew = new Map(entriesOf(member(neu, 'content')));
  for (const [type, media] of mediaOld) {
    const match = mediaNew.get(type);
    if (!match) {
      out.push(
        ...findings(
          {
            rule: 'request-media-type-removed',
            family,
            old: media.pointer,
            new: neu.pointer,
            change: `${label} is no longer accepted as ${type}.`,
          },
          verdictsOf('narrows', flow),
        ),
      );
      continue;
    }
    // Every media type of this contract carries the same schema (decision form-encoding-coercion): compare JSON's, or the first.
    if (type === 'application/json' || !mediaOld.has('application/json'))
      compareSchemas(
        { flow, family, subject: label, out },
        member(resolve(media), 'schema'),
        member(resolve(match), 'schema'),
      );
  }
  for (const [type, media] of mediaNew) {
    if (!mediaOld.has(type))
      out.push(
        ...findings(
          {
            rule: 'request-media-type-added',
            family,
            old: old.pointer,
            new: media.pointer,
            change: `${label} is now also accepted as ${type}.`,
          },
          verdictsOf('widens', flow),
        ),
      );
  }
  return out;
}

export function compareRequestBodies(old: JsonObject, neu: JsonObject): Finding[] {
  return matchedOperations(old, neu).flatMap(([before, after]) =>
    compareBodies(
      before.name,
      'request',
      'request-bodies',
      member(before.operation, 'requestBody'),
      member(after.operation, 'requestBody'),
    ),
  );
}
