// Webhooks (callbacks): the service sends them and the merchant's endpoint receives them, so the
// direction flips: a field added as required in a callback body is fine for receivers (they get more),
// a field removed or an enum widened is not. A callback kind added or removed, and `x-delivery` (how the
// service delivers it: attempts, spacing, acknowledgement, destination) are compared here too.
import type { JsonObject } from '@payments-contract/model/types';
import { child, isObject, member, resolve, show } from '../json.js';
import type { Finding, Located } from '../types.js';
import { explicit, findings, type Verdict } from '../verdicts.js';
import { compareParameterSets, parametersOf } from './parameters.js';
import { compareBodies } from './request-bodies.js';

interface WebhookAt {
  name: string;
  label: string;
  operation: Located;
}

function webhooksOf(doc: JsonObject): Map<string, WebhookAt> {
  const hooks = new Map<string, WebhookAt>();
  for (const [name, item] of Object.entries(isObject(doc.webhooks) ? doc.webhooks : {})) {
    const pathItem = resolve({ doc, node: item, pointer: child('#/webhooks', name) });
    const operation = resolve(member(pathItem, 'post'));
    if (!isObject(operation.node)) continue;
    const operationId = typeof operation.node.operationId === 'string' ? operation.node.operationId : name;
    hooks.set(name, { name, label: `callback ${name} (${operationId})`, operation });
  }
  return hooks;
}

type DeliveryVerdicts = (was: unknown, is: unknown) => Verdict[];
const bothBreaking = (receiver: string, server: string): Verdict[] =>
  explicit(['callback-receiver', 'breaking', receiver], ['server', 'breaking', server]);

/** What a change of each `x-delivery` field means for the receiver and for the service that sends. */
const DELIVERY_RULES: Record<string, DeliveryVerdicts> = {
  attempts: (was, is) =>
    Number(is) < Number(was)
      ? explicit(
          [
            'callback-receiver',
            'breaking',
            'fewer attempts: an endpoint down for a while now loses callbacks it would have received',
          ],
          [
            'server',
            'potentially-breaking',
            'a server that keeps retrying as before sends more attempts than the contract allows',
          ],
        )
      : explicit(
          [
            'callback-receiver',
            'non-breaking',
            'more attempts: more chances to receive it (duplicates are already possible)',
          ],
          ['server', 'breaking', 'a server must make the extra attempts'],
        ),
  retry_interval_seconds: (was, is) =>
    Number(is) < Number(was)
      ? explicit(
          [
            'callback-receiver',
            'breaking',
            'shorter spacing: an endpoint that recovers within the old spacing now misses attempts',
          ],
          ['server', 'breaking', 'a server must retry sooner'],
        )
      : explicit(
          [
            'callback-receiver',
            'potentially-breaking',
            'longer spacing: after a failed attempt the callback arrives later',
          ],
          ['server', 'breaking', 'a server must wait longer between attempts'],
        ),
  acknowledgement: () =>
    bothBreaking(
      'the receiver must acknowledge callbacks the new way or they are retried and then lost',
      'a server must judge attempts by the new acknowledgement rule',
    ),
  destination: () =>
    bothBreaking(
      'callbacks go to another URL setting: an endpoint configured where they used to go no longer receives them',
      'a server must send them to the new destination',
    ),
  guarantee: () =>
    bothBreaking(
      'the delivery guarantee changed: deduplication or loss handling must follow it',
      'a server must keep the new guarantee',
    ),
  ordering: () =>
    bothBreaking(
      'the ordering promise changed: the receiver must handle callbacks in the new order rules',
      'a server must keep the new ordering',
    ),
  after_final_failure: () =>
    explicit(
      ['callback-receiver', 'non-breaking', 'what happens after the last failed attempt changed'],
      ['server', 'potentially-breaking', 'a server must follow the new procedure after the last failure'],
    ),
};

function compareDelivery(hook: WebhookAt, old: Located, neu: Located): Finding[] {
  const out: Finding[] = [];
  const before = isObject(old.node) ? old.node : undefined;
  const after = isObject(neu.node) ? neu.node : undefined;
  if (!before || !after) {
    if (before || after)
      out.push(
        ...findings(
          {
            rule: before ? 'delivery-removed' : 'delivery-added',
            family: 'x-delivery',
            old: old.pointer,
            new: neu.pointer,
            change: `${hook.label}: its delivery rules (x-delivery) were ${before ? 'removed' : 'added'}.`,
          },
          explicit(
            [
              'callback-receiver',
              'potentially-breaking',
              'how callbacks are delivered is no longer stated the same way',
            ],
            ['server', 'potentially-breaking', 'a server must deliver as now stated'],
          ),
        ),
      );
    return out;
  }
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[field];
    const is = after[field];
    if (JSON.stringify(was) === JSON.stringify(is)) continue;
    const rule =
      DELIVERY_RULES[field] ??
      (() => bothBreaking(`the delivery rule ${field} changed`, `a server must follow the new ${field}`));
    out.push(
      ...findings(
        {
          rule: `delivery-${field.replaceAll('_', '-')}-changed`,
          family: 'x-delivery',
          old: child(old.pointer, field),
          new: child(neu.pointer, field),
          change: `${hook.label}: delivery ${field} changed from ${show(was)} to ${show(is)}.`,
        },
        rule(was, is),
      ),
    );
  }
  return out;
}

export function compareWebhooks(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  const before = webhooksOf(old);
  const after = webhooksOf(neu);
  for (const [name, hook] of before) {
    const match = after.get(name);
    if (!match) {
      out.push(
        ...findings(
          {
            rule: 'callback-removed',
            family: 'webhooks',
            old: hook.operation.pointer,
            change: `The ${hook.label} is no longer sent.`,
          },
          explicit(
            ['callback-receiver', 'breaking', 'a receiver waiting for it never gets it'],
            ['server', 'non-breaking', 'a server may stop sending it'],
          ),
        ),
      );
      continue;
    }
    out.push(
      ...compareParameterSets(
        hook.label,
        'callback',
        parametersOf(undefined, hook.operation),
        parametersOf(undefined, match.operation),
        { old: child(hook.operation.pointer, 'parameters'), new: child(match.operation.pointer, 'parameters') },
      ),
    );
    out.push(
      ...compareBodies(
        hook.label,
        'callback',
        'webhooks',
        member(hook.operation, 'requestBody'),
        member(match.operation, 'requestBody'),
      ),
    );
    out.push(...compareDelivery(hook, member(hook.operation, 'x-delivery'), member(match.operation, 'x-delivery')));
  }
  for (const [name, hook] of after) {
    if (before.has(name)) continue;
    out.push(
      ...findings(
        {
          rule: 'callback-added',
          family: 'webhooks',
          new: hook.operation.pointer,
          change: `The ${hook.label} was added.`,
        },
        explicit(
          [
            'callback-receiver',
            'potentially-breaking',
            'a receiver may get a kind of callback it does not know: it must acknowledge it and may ignore it',
          ],
          ['server', 'breaking', 'a server must send it'],
        ),
      ),
    );
  }
  return out;
}
