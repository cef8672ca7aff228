// Authentication: the security requirements each operation ends up with (its own or the document's),
// and the definitions of the schemes. Requirements are alternatives: removing one refuses the clients
// that use it; adding one obliges servers to accept it. A scheme whose definition changes (type, HTTP
// scheme, header name) breaks everyone who speaks it, the callback receivers for the callback token.
import type { Json, JsonObject } from '@payments-contract/model/types';
import { child, isObject, list, show } from '../json.js';
import type { Finding, Party } from '../types.js';
import { explicit, findings } from '../verdicts.js';
import { matchedOperations } from './operations.js';

/** Each alternative as `scheme[scopes]+scheme[scopes]`; an empty requirement list means none. */
function alternatives(requirements: Json | undefined): string[] {
  if (!Array.isArray(requirements)) return [];
  return requirements.map((requirement) =>
    isObject(requirement)
      ? Object.entries(requirement)
          .map(
            ([scheme, scopes]) =>
              `${scheme}${Array.isArray(scopes) && scopes.length > 0 ? `[${scopes.map(String).sort().join(',')}]` : ''}`,
          )
          .sort()
          .join('+') || 'anonymous'
      : 'anonymous',
  );
}

const effective = (doc: JsonObject, operation: Json | undefined): { requirements: Json | undefined; own: boolean } =>
  isObject(operation) && operation.security !== undefined
    ? { requirements: operation.security, own: true }
    : { requirements: doc.security, own: false };

/** Schemes the webhooks use: their changes reach the callback receivers. */
function webhookSchemes(doc: JsonObject): Set<string> {
  const names = new Set<string>();
  for (const item of Object.values(isObject(doc.webhooks) ? doc.webhooks : {})) {
    for (const operation of Object.values(isObject(item) ? item : {})) {
      for (const alternative of alternatives(isObject(operation) ? operation.security : undefined))
        for (const part of alternative.split('+')) names.add(part.replace(/\[.*$/, ''));
    }
  }
  return names;
}

const DEFINING = ['type', 'scheme', 'in', 'name', 'bearerFormat'] as const;

export function compareSecurity(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  for (const [before, after] of matchedOperations(old, neu)) {
    const was = effective(old, before.operation.node);
    const is = effective(neu, after.operation.node);
    const pointers = {
      old: was.own ? child(before.operation.pointer, 'security') : '#/security',
      new: is.own ? child(after.operation.pointer, 'security') : '#/security',
    };
    const oldAlternatives = alternatives(was.requirements);
    const newAlternatives = alternatives(is.requirements);
    for (const alternative of oldAlternatives.filter((candidate) => !newAlternatives.includes(candidate))) {
      out.push(
        ...findings(
          {
            rule: 'security-requirement-removed',
            family: 'security',
            ...pointers,
            change: `${before.name}: authentication with ${alternative} is no longer accepted.`,
          },
          explicit(
            ['client', 'breaking', 'a client authenticating that way is refused'],
            ['server', 'non-breaking', 'a server may stop accepting it'],
          ),
        ),
      );
    }
    for (const alternative of newAlternatives.filter((candidate) => !oldAlternatives.includes(candidate))) {
      const wasOpen = oldAlternatives.length === 0 || oldAlternatives.includes('anonymous');
      out.push(
        ...findings(
          {
            rule: 'security-requirement-added',
            family: 'security',
            ...pointers,
            change: `${before.name}: authentication with ${alternative} is ${wasOpen ? 'now required' : 'now also accepted'}.`,
          },
          wasOpen
            ? explicit(
                ['client', 'breaking', 'a client that called it without credentials is refused'],
                ['server', 'breaking', 'a server must now check the credentials'],
              )
            : explicit(
                ['client', 'non-breaking', 'a client may authenticate that way'],
                ['server', 'breaking', 'a server must accept it'],
              ),
        ),
      );
    }
  }
  const schemesOld =
    isObject(old.components) && isObject(old.components.securitySchemes) ? old.components.securitySchemes : {};
  const schemesNew =
    isObject(neu.components) && isObject(neu.components.securitySchemes) ? neu.components.securitySchemes : {};
  const callbackSchemes = webhookSchemes(old);
  for (const [name, scheme] of Object.entries(schemesOld)) {
    const match = schemesNew[name];
    if (!isObject(scheme) || !isObject(match)) continue;
    const changed = DEFINING.filter(
      (field) => String(scheme[field] ?? '').toLowerCase() !== String(match[field] ?? '').toLowerCase(),
    );
    if (changed.length === 0) continue;
    const parties: Party[] = callbackSchemes.has(name) ? ['server', 'callback-receiver'] : ['client', 'server'];
    out.push(
      ...findings(
        {
          rule: 'security-scheme-changed',
          family: 'security',
          old: child('#/components/securitySchemes', name),
          new: child('#/components/securitySchemes', name),
          change: `The ${name} security scheme changed its ${list(changed)} (${changed.map((field) => `${show(scheme[field])} → ${show(match[field])}`).join(', ')}).`,
        },
        explicit(
          ...parties.map((party): [Party, 'breaking', string] => [
            party,
            'breaking',
            party === 'server'
              ? 'a server must authenticate the new way'
              : party === 'client'
                ? 'a client must authenticate the new way'
                : 'a callback receiver must verify callbacks the new way',
          ]),
        ),
      ),
    );
  }
  return out;
}
