// `x-state-machines`: the states each resource can be in and the transitions between them (trigger,
// condition, effects). A generic tool may see a status enum widened, and sees nothing of a transition
// added, removed or given other effects (another callback, money moved differently), which change what
// clients and callback receivers observe.
import type { Json, JsonObject } from '@payments-contract/model/types';
import { child, deepEqual, isObject, list, show } from '../json.js';
import type { Finding, Party, Severity } from '../types.js';
import { explicit, findings } from '../verdicts.js';

interface TransitionAt {
  key: string;
  label: string;
  transition: JsonObject;
  pointer: string;
}

const withoutDescriptions = (value: Json | undefined): Json | undefined => {
  if (Array.isArray(value)) return value.map((item) => withoutDescriptions(item) ?? null);
  if (!isObject(value)) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'description')
      .map(([key, item]) => [key, withoutDescriptions(item) ?? null]),
  );
};

function triggerText(trigger: Json | undefined): string {
  if (!isObject(trigger)) return 'an unnamed trigger';
  if (typeof trigger.operation === 'string') return `operation ${trigger.operation}`;
  if (typeof trigger.event === 'string') return `event ${trigger.event}`;
  if (typeof trigger.time === 'string') return `time (${trigger.time})`;
  return show(withoutDescriptions(trigger));
}

/** Transitions keyed by from, to, trigger and the data condition (`when`); repeats numbered. */
function transitionsOf(machine: JsonObject, pointer: string): Map<string, TransitionAt> {
  const byKey = new Map<string, TransitionAt>();
  (Array.isArray(machine.transitions) ? machine.transitions : []).forEach((transition, index) => {
    if (!isObject(transition)) return;
    const label = `${transition.from === null ? '(creation)' : show(transition.from)} → ${show(transition.to)} on ${triggerText(transition.trigger)}${isObject(transition.when) ? ` when ${show(transition.when)}` : ''}`;
    let key = `${JSON.stringify(transition.from)}|${JSON.stringify(transition.to)}|${JSON.stringify(withoutDescriptions(transition.trigger))}|${JSON.stringify(transition.when ?? null)}`;
    for (let repeat = 2; byKey.has(key); repeat++) key = `${key.replace(/#\d+$/, '')}#${repeat}`;
    byKey.set(key, { key, label, transition, pointer: child(child(pointer, 'transitions'), index) });
  });
  return byKey;
}

/** An effect in words: `sends the ewalletPayment callback`, `debits resource.amount from the CASH balance`. */
function effectText(effect: Json | undefined): string {
  if (!isObject(effect)) return show(effect);
  if (typeof effect.callback === 'string') return `sends the ${effect.callback} callback`;
  if (isObject(effect.balance)) {
    const balance = effect.balance;
    const account = isObject(balance.query) ? Object.values(balance.query).map(String).join(' ') : '';
    return `${balance.change === 'credit' ? 'credits' : 'debits'} ${show(balance.amount)} ${balance.change === 'credit' ? 'to' : 'from'} the ${account} balance${isObject(balance.when) ? ` when ${show(balance.when)}` : ''}`;
  }
  if (typeof effect.error === 'string')
    return `answers ${effect.status === undefined ? '' : `${show(effect.status)} `}${effect.error}`;
  return show(withoutDescriptions(effect));
}

const callbacksOf = (transition: JsonObject): string[] =>
  (Array.isArray(transition.effects) ? transition.effects : []).flatMap((effect) =>
    isObject(effect) && typeof effect.callback === 'string' ? [effect.callback] : [],
  );

function compareEffects(machine: string, before: TransitionAt, after: TransitionAt): Finding[] {
  const was = withoutDescriptions(before.transition.effects ?? []);
  const is = withoutDescriptions(after.transition.effects ?? []);
  if (deepEqual(was, is)) return [];
  const callbacksBefore = callbacksOf(before.transition);
  const callbacksAfter = callbacksOf(after.transition);
  const lost = callbacksBefore.filter((name) => !callbacksAfter.includes(name));
  const gained = callbacksAfter.filter((name) => !callbacksBefore.includes(name));
  const verdicts: [Party, Severity, string][] = [
    [
      'client',
      'breaking',
      'what the transition does (money moved, answer given, callback sent) is not what a client was written for',
    ],
    ['server', 'breaking', 'a server must carry out the new effects'],
  ];
  if (lost.length > 0)
    verdicts.push(['callback-receiver', 'breaking', `the ${list(lost)} callback no longer follows this transition`]);
  else if (gained.length > 0)
    verdicts.push([
      'callback-receiver',
      'potentially-breaking',
      `the ${list(gained)} callback now follows this transition`,
    ]);
  const listed = (value: Json | undefined): Json[] => (Array.isArray(value) ? value : []);
  const added = listed(is)
    .filter((effect) => !listed(was).some((known) => deepEqual(known, effect)))
    .map(effectText);
  const removed = listed(was)
    .filter((effect) => !listed(is).some((kept) => deepEqual(kept, effect)))
    .map(effectText);
  const parts = [
    ...(added.length > 0 ? [`now also ${added.join(' and ')}`] : []),
    ...(removed.length > 0 ? [`no longer ${removed.join(' and ')}`] : []),
  ];
  return findings(
    {
      rule: 'state-transition-effects-changed',
      family: 'x-state-machines',
      old: child(before.pointer, 'effects'),
      new: child(after.pointer, 'effects'),
      change: `State machine ${machine}: ${after.label} ${parts.join(', and ')}.`,
    },
    explicit(...verdicts),
  );
}

function compareMachine(
  name: string,
  old: JsonObject,
  neu: JsonObject,
  pointers: { old: string; new: string },
): Finding[] {
  const out: Finding[] = [];
  const statesOld = Array.isArray(old.states) ? old.states.map(String) : [];
  const statesNew = Array.isArray(neu.states) ? neu.states.map(String) : [];
  const at = { old: child(pointers.old, 'states'), new: child(pointers.new, 'states') };
  for (const state of statesNew.filter((candidate) => !statesOld.includes(candidate))) {
    out.push(
      ...findings(
        {
          rule: 'state-added',
          family: 'x-state-machines',
          ...at,
          change: `State machine ${name}: a ${String(neu.resource)} can now be ${state}.`,
        },
        explicit(
          ['client', 'breaking', `an exhaustive switch over the ${String(neu.field)} values does not handle ${state}`],
          ['callback-receiver', 'breaking', `callbacks about a ${String(neu.resource)} may carry ${state}`],
          ['server', 'non-breaking', 'a server reaches it only through transitions, reported on their own'],
        ),
      ),
    );
  }
  for (const state of statesOld.filter((candidate) => !statesNew.includes(candidate))) {
    out.push(
      ...findings(
        {
          rule: 'state-removed',
          family: 'x-state-machines',
          ...at,
          change: `State machine ${name}: a ${String(old.resource)} can no longer be ${state}.`,
        },
        explicit(
          ['client', 'non-breaking', `handling ${state} becomes dead code`],
          ['server', 'potentially-breaking', `a server that still produces ${state} departs from the contract`],
        ),
      ),
    );
  }
  if (old.initial !== neu.initial) {
    out.push(
      ...findings(
        {
          rule: 'state-initial-changed',
          family: 'x-state-machines',
          old: child(pointers.old, 'initial'),
          new: child(pointers.new, 'initial'),
          change: `State machine ${name}: a new ${String(neu.resource)} starts ${show(neu.initial)} instead of ${show(old.initial)}.`,
        },
        explicit(
          ['client', 'breaking', 'a client reading a new object sees another state'],
          ['server', 'breaking', 'a server must create objects in the new state'],
        ),
      ),
    );
  }
  const finalOld = Array.isArray(old.final) ? old.final.map(String) : [];
  const finalNew = Array.isArray(neu.final) ? neu.final.map(String) : [];
  for (const state of finalOld.filter((candidate) => !finalNew.includes(candidate) && statesNew.includes(candidate))) {
    out.push(
      ...findings(
        {
          rule: 'state-no-longer-final',
          family: 'x-state-machines',
          old: child(pointers.old, 'final'),
          new: child(pointers.new, 'final'),
          change: `State machine ${name}: ${state} is no longer final.`,
        },
        explicit(
          ['client', 'breaking', `a client that stops watching at ${state} misses later changes`],
          ['callback-receiver', 'breaking', `callbacks may follow ${state}`],
          ['server', 'potentially-breaking', `a server may move objects out of ${state}`],
        ),
      ),
    );
  }
  for (const state of finalNew.filter((candidate) => !finalOld.includes(candidate) && statesOld.includes(candidate))) {
    out.push(
      ...findings(
        {
          rule: 'state-became-final',
          family: 'x-state-machines',
          old: child(pointers.old, 'final'),
          new: child(pointers.new, 'final'),
          change: `State machine ${name}: ${state} became final.`,
        },
        explicit(
          ['client', 'potentially-breaking', `a client waiting for a change after ${state} waits forever`],
          ['server', 'breaking', `a server must no longer move objects out of ${state}`],
        ),
      ),
    );
  }
  const transitionsOld = transitionsOf(old, pointers.old);
  const transitionsNew = transitionsOf(neu, pointers.new);
  for (const [key, transition] of transitionsOld) {
    const match = transitionsNew.get(key);
    if (match) {
      out.push(...compareEffects(name, transition, match));
      continue;
    }
    out.push(
      ...findings(
        {
          rule: 'state-transition-removed',
          family: 'x-state-machines',
          old: transition.pointer,
          new: child(pointers.new, 'transitions'),
          change: `State machine ${name}: ${transition.label} no longer happens.`,
        },
        explicit(
          ['client', 'potentially-breaking', 'a client that relied on this transition no longer sees it'],
          ...(callbacksOf(transition.transition).length > 0
            ? [
                [
                  'callback-receiver',
                  'breaking',
                  `the ${list(callbacksOf(transition.transition))} callback it sent no longer comes`,
                ] as [Party, Severity, string],
              ]
            : []),
          ['server', 'potentially-breaking', 'a server that still makes it departs from the contract'],
        ),
      ),
    );
  }
  for (const [key, transition] of transitionsNew) {
    if (transitionsOld.has(key)) continue;
    out.push(
      ...findings(
        {
          rule: 'state-transition-added',
          family: 'x-state-machines',
          old: child(pointers.old, 'transitions'),
          new: transition.pointer,
          change: `State machine ${name}: ${transition.label} can now happen.`,
        },
        explicit(
          ['client', 'potentially-breaking', 'a client may now see this change of state'],
          ...(callbacksOf(transition.transition).length > 0
            ? [
                [
                  'callback-receiver',
                  'potentially-breaking',
                  `the ${list(callbacksOf(transition.transition))} callback now also follows this transition`,
                ] as [Party, Severity, string],
              ]
            : []),
          ['server', 'breaking', 'a server must implement the transition'],
        ),
      ),
    );
  }
  return out;
}

export function compareStateMachines(old: JsonObject, neu: JsonObject): Finding[] {
  const out: Finding[] = [];
  const before = isObject(old['x-state-machines']) ? old['x-state-machines'] : {};
  const after = isObject(neu['x-state-machines']) ? neu['x-state-machines'] : {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[name];
    const is = after[name];
    const pointers = { old: child('#/x-state-machines', name), new: child('#/x-state-machines', name) };
    if (isObject(was) && isObject(is)) out.push(...compareMachine(name, was, is, pointers));
    else if (isObject(was))
      out.push(
        ...findings(
          {
            rule: 'state-machine-removed',
            family: 'x-state-machines',
            old: pointers.old,
            change: `The state machine ${name} is no longer stated.`,
          },
          explicit(
            ['client', 'potentially-breaking', 'the states and transitions a client relied on are no longer promised'],
            ['server', 'non-breaking', 'a server is no longer held to them'],
          ),
        ),
      );
    else if (isObject(is))
      out.push(
        ...findings(
          {
            rule: 'state-machine-added',
            family: 'x-state-machines',
            new: pointers.new,
            change: `The state machine ${name} is now stated.`,
          },
          explicit(
            ['client', 'non-breaking', 'a client may rely on its states and transitions'],
            ['server', 'potentially-breaking', 'a server must follow it'],
          ),
        ),
      );
  }
  return out;
}
