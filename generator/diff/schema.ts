// Compares two JSON Schemas (as the bundled contracts hold them, references followed) keyword by keyword
// and reports each difference with its effect on the set of valid messages; verdicts.ts turns the effect
// into a verdict per party from the direction the message flows. `x-error-codes` (which code a failing
// keyword yields) is compared here too, where the keyword is.
import type { Json } from '@payments-contract/model/types';
import { deepEqual, isObject, list, member, resolve, show } from './json.js';
import type { Family, Finding, Located } from './types.js';
import { explicit, findings, verdictsOf, type Effect, type Flow, type Verdict } from './verdicts.js';

export interface SchemaComparison {
  flow: Flow;
  /** The family structural findings belong to (x-error-codes findings keep their own). */
  family: Family;
  /** What the schema describes, for sentences: `createDisbursement request body`. */
  subject: string;
  /** The responses rule reports `error_code` values per status itself: leave that enum alone. */
  errorCodesElsewhere?: boolean;
  out: Finding[];
}

/** Where in the message: a field path (`email_to[]`) and the condition of an if/then branch, if any. */
interface Place {
  field: string;
  condition: string;
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'] as const;
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'] as const;
const UNDECIDABLE = ['pattern', 'format', 'multipleOf'] as const;

const phrase = (place: Place): string => (place.field === '' ? 'the schema' : `\`${place.field}\``);
const kebab = (keyword: string): string => keyword.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
const fieldOf = (parent: string, name: string): string => (parent === '' ? name : `${parent}.${name}`);

function report(
  c: SchemaComparison,
  rule: string,
  old: Located,
  neu: Located,
  text: string,
  verdicts: Verdict[],
  family: 'x-error-codes' | undefined = undefined,
): void {
  c.out.push(
    ...findings(
      { rule, family: family ?? c.family, old: old.pointer, new: neu.pointer, change: `${c.subject}: ${text}.` },
      verdicts,
    ),
  );
}

/** Reports a structural change; the branch condition, if any, ends the sentence. */
const effectReport = (
  c: SchemaComparison,
  rule: string,
  old: Located,
  neu: Located,
  place: Place,
  text: string,
  effect: Effect,
): void => report(c, `${c.flow}-${rule}`, old, neu, `${text}${place.condition}`, verdictsOf(effect, c.flow));

/** JSON types a schema allows (undefined: any), `integer` counted inside `number`. */
function typesOf(node: Json | undefined): string[] | undefined {
  if (!isObject(node) || node.type === undefined) return undefined;
  return (Array.isArray(node.type) ? node.type : [node.type]).map(String);
}
const covers = (types: string[], type: string): boolean =>
  types.includes(type) || (type === 'integer' && types.includes('number'));

/** The values a schema is limited to (enum, or const as a one-value enum). */
function valuesOf(node: Json | undefined): Json[] | undefined {
  if (!isObject(node)) return undefined;
  if (Array.isArray(node.enum)) return node.enum;
  return node.const === undefined ? undefined : [node.const];
}

/** A sentence for an if/then branch: the condition on the fields the `if` names. */
export function conditionText(ifSchema: Json | undefined, negate: boolean): string {
  const properties = isObject(ifSchema) && isObject(ifSchema.properties) ? ifSchema.properties : {};
  const parts = Object.entries(properties).flatMap(([name, rule]) => {
    if (!isObject(rule)) return [];
    if (rule.const !== undefined) return [`\`${name}\` is ${negate ? 'not ' : ''}${show(rule.const)}`];
    if (Array.isArray(rule.enum)) return [`\`${name}\` is ${negate ? 'not ' : ''}one of ${list(rule.enum)}`];
    if (isObject(rule.not) && Array.isArray(rule.not.enum))
      return [`\`${name}\` is ${negate ? '' : 'not '}one of ${list(rule.not.enum)}`];
    return [];
  });
  return parts.length > 0 ? ` when ${parts.join(' and ')}` : ' under a condition';
}

function compareTypes(c: SchemaComparison, old: Located, neu: Located, place: Place): void {
  const before = typesOf(old.node);
  const after = typesOf(neu.node);
  if (before === undefined && after === undefined) return;
  if (before === undefined || after === undefined) {
    effectReport(
      c,
      before === undefined ? 'type-added' : 'type-removed',
      old,
      neu,
      place,
      `${phrase(place)} ${before === undefined ? `is now limited to ${list(after ?? [])}` : `is no longer limited to ${list(before)}`}`,
      before === undefined ? 'narrows' : 'widens',
    );
    return;
  }
  const added = after.filter((type) => !covers(before, type));
  const removed = before.filter((type) => !covers(after, type));
  if (added.length > 0)
    effectReport(c, 'type-widened', old, neu, place, `${phrase(place)} may now also be ${list(added)}`, 'widens');
  if (removed.length > 0)
    effectReport(c, 'type-narrowed', old, neu, place, `${phrase(place)} may no longer be ${list(removed)}`, 'narrows');
}

function compareValues(c: SchemaComparison, old: Located, neu: Located, place: Place): void {
  if (c.errorCodesElsewhere && /(^|\.)error_code$/.test(place.field)) return;
  const before = valuesOf(old.node);
  const after = valuesOf(neu.node);
  if (before === undefined && after === undefined) return;
  if (before === undefined)
    return effectReport(
      c,
      'enum-added',
      old,
      neu,
      place,
      `${phrase(place)} is now limited to ${list(after ?? [])}`,
      'narrows',
    );
  if (after === undefined)
    return effectReport(
      c,
      'enum-removed',
      old,
      neu,
      place,
      `${phrase(place)} is no longer limited to ${list(before)}`,
      'widens',
    );
  const added = after.filter((value) => !before.some((known) => deepEqual(known, value)));
  const removed = before.filter((value) => !after.some((kept) => deepEqual(kept, value)));
  if (added.length > 0)
    effectReport(
      c,
      'enum-value-added',
      old,
      neu,
      place,
      `${phrase(place)} gains the value${added.length > 1 ? 's' : ''} ${list(added)}`,
      'widens',
    );
  if (removed.length > 0)
    effectReport(
      c,
      'enum-value-removed',
      old,
      neu,
      place,
      `${phrase(place)} loses the value${removed.length > 1 ? 's' : ''} ${list(removed)}`,
      'narrows',
    );
}

function compareBounds(c: SchemaComparison, old: Located, neu: Located, place: Place): void {
  if (!isObject(old.node) || !isObject(neu.node)) return;
  for (const [keywords, lower] of [
    [LOWER_BOUNDS, true],
    [UPPER_BOUNDS, false],
  ] as const) {
    for (const keyword of keywords) {
      const before = old.node[keyword];
      const after = neu.node[keyword];
      if (before === after) continue;
      const at = { old: member(old, keyword), neu: member(neu, keyword) };
      const name = kebab(keyword);
      if (typeof before !== 'number')
        effectReport(
          c,
          `${name}-set`,
          at.old,
          at.neu,
          place,
          `${phrase(place)} gets a ${keyword} of ${show(after)}`,
          'narrows',
        );
      else if (typeof after !== 'number')
        effectReport(
          c,
          `${name}-removed`,
          at.old,
          at.neu,
          place,
          `${phrase(place)} loses its ${keyword} of ${before}`,
          'widens',
        );
      else {
        const raised = after > before;
        effectReport(
          c,
          `${name}-${raised ? 'increased' : 'decreased'}`,
          at.old,
          at.neu,
          place,
          `${phrase(place)} ${keyword} ${raised ? 'rose' : 'fell'} from ${before} to ${after}`,
          raised === lower ? 'narrows' : 'widens',
        );
      }
    }
  }
  for (const keyword of UNDECIDABLE) {
    const before = old.node[keyword];
    const after = neu.node[keyword];
    if (deepEqual(before, after)) continue;
    const at = { old: member(old, keyword), neu: member(neu, keyword) };
    const name = kebab(keyword);
    if (before === undefined)
      effectReport(
        c,
        `${name}-set`,
        at.old,
        at.neu,
        place,
        `${phrase(place)} must now match ${keyword} ${show(after)}`,
        'narrows',
      );
    else if (after === undefined)
      effectReport(
        c,
        `${name}-removed`,
        at.old,
        at.neu,
        place,
        `${phrase(place)} no longer has to match ${keyword} ${show(before)}`,
        'widens',
      );
    else
      effectReport(
        c,
        `${name}-changed`,
        at.old,
        at.neu,
        place,
        `${phrase(place)} ${keyword} changed from ${show(before)} to ${show(after)}`,
        'unknown',
      );
  }
}

/** `x-error-codes`: which code a failing keyword yields. A changed code breaks whoever switches on codes. */
function compareErrorCodes(c: SchemaComparison, old: Located, neu: Located, place: Place): void {
  const before = isObject(old.node) && isObject(old.node['x-error-codes']) ? old.node['x-error-codes'] : {};
  const after = isObject(neu.node) && isObject(neu.node['x-error-codes']) ? neu.node['x-error-codes'] : {};
  const at = { old: member(old, 'x-error-codes'), neu: member(neu, 'x-error-codes') };
  for (const keyword of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = before[keyword];
    const is = after[keyword];
    if (was === is) continue;
    const where = `breaking the ${keyword} rule of ${phrase(place)}`;
    if (was === undefined) {
      report(
        c,
        'error-code-rule-added',
        member(at.old, keyword),
        member(at.neu, keyword),
        `${where} now yields ${show(is)} instead of the operation's validation code`,
        explicit(
          [
            'client',
            'potentially-breaking',
            `a client that handled the validation code for this mistake now gets ${show(is)}`,
          ],
          ['server', 'breaking', `a server must answer ${show(is)} for it`],
        ),
        'x-error-codes',
      );
    } else if (is === undefined) {
      report(
        c,
        'error-code-rule-removed',
        member(at.old, keyword),
        member(at.neu, keyword),
        `${where} no longer yields ${show(was)} but the operation's validation code`,
        explicit(
          ['client', 'breaking', `a client that handled ${show(was)} for this mistake no longer gets it`],
          ['server', 'breaking', `a server must answer the validation code instead of ${show(was)}`],
        ),
        'x-error-codes',
      );
    } else {
      report(
        c,
        'error-code-rule-changed',
        member(at.old, keyword),
        member(at.neu, keyword),
        `${where} now yields ${show(is)} instead of ${show(was)}`,
        explicit(
          ['client', 'breaking', `a client that handled ${show(was)} for this mistake gets ${show(is)}`],
          ['server', 'breaking', `a server must answer ${show(is)} instead of ${show(was)}`],
        ),
        'x-error-codes',
      );
    }
  }
}

function compareObject(c: SchemaComparison, old: Located, neu: Located, place: Place, seen: Set<string>): void {
  if (!isObject(old.node) || !isObject(neu.node)) return;
  const requiredBefore = new Set(Array.isArray(old.node.required) ? old.node.required.map(String) : []);
  const requiredAfter = new Set(Array.isArray(neu.node.required) ? neu.node.required.map(String) : []);
  const propsOld = resolve(member(old, 'properties'));
  const propsNew = resolve(member(neu, 'properties'));
  const namesOld = isObject(propsOld.node) ? Object.keys(propsOld.node) : [];
  const namesNew = isObject(propsNew.node) ? Object.keys(propsNew.node) : [];
  for (const name of namesOld) {
    const field = fieldOf(place.field, name);
    const at = { old: member(propsOld, name), neu: member(propsNew, name) };
    if (!namesNew.includes(name)) {
      const wasRequired = requiredBefore.has(name);
      effectReport(
        c,
        'property-removed',
        at.old,
        { ...at.neu, pointer: propsNew.pointer },
        place,
        `\`${field}\` was removed`,
        wasRequired ? 'removes' : 'removes-optional',
      );
      continue;
    }
    compareAt(c, at.old, at.neu, { field, condition: place.condition }, seen);
  }
  for (const name of namesNew.filter((candidate) => !namesOld.includes(candidate))) {
    const field = fieldOf(place.field, name);
    const at = { old: { ...member(propsOld, name), pointer: propsOld.pointer }, neu: member(propsNew, name) };
    if (requiredAfter.has(name))
      effectReport(
        c,
        'required-property-added',
        at.old,
        at.neu,
        place,
        `\`${field}\` was added as required`,
        'narrows',
      );
    else
      effectReport(c, 'optional-property-added', at.old, at.neu, place, `\`${field}\` was added as optional`, 'adds');
  }
  const atRequired = { old: member(old, 'required'), neu: member(neu, 'required') };
  for (const name of requiredAfter) {
    if (!requiredBefore.has(name) && namesOld.includes(name))
      effectReport(
        c,
        'property-became-required',
        atRequired.old,
        atRequired.neu,
        place,
        `\`${fieldOf(place.field, name)}\` became required`,
        'narrows',
      );
  }
  for (const name of requiredBefore) {
    if (!requiredAfter.has(name) && namesNew.includes(name))
      effectReport(
        c,
        'property-became-optional',
        atRequired.old,
        atRequired.neu,
        place,
        `\`${fieldOf(place.field, name)}\` became optional`,
        'widens',
      );
  }
  compareAdditional(c, old, neu, place, seen);
  compareDependentRequired(c, old, neu, place);
}

function compareAdditional(c: SchemaComparison, old: Located, neu: Located, place: Place, seen: Set<string>): void {
  const at = { old: member(old, 'additionalProperties'), neu: member(neu, 'additionalProperties') };
  const closed = (node: Json | undefined): boolean => node === false;
  if (closed(at.old.node) !== closed(at.neu.node)) {
    const nowClosed = closed(at.neu.node);
    effectReport(
      c,
      nowClosed ? 'additional-properties-forbidden' : 'additional-properties-allowed',
      at.old,
      at.neu,
      place,
      `${phrase(place)} ${nowClosed ? 'no longer allows' : 'now allows'} fields it does not name`,
      nowClosed ? 'narrows' : 'widens',
    );
  } else if (isObject(at.old.node) && isObject(at.neu.node)) {
    compareAt(c, at.old, at.neu, { field: `${place.field}{*}`, condition: place.condition }, seen);
  }
}

function compareDependentRequired(c: SchemaComparison, old: Located, neu: Located, place: Place): void {
  const before = isObject(old.node) && isObject(old.node.dependentRequired) ? old.node.dependentRequired : {};
  const after = isObject(neu.node) && isObject(neu.node.dependentRequired) ? neu.node.dependentRequired : {};
  const at = { old: member(old, 'dependentRequired'), neu: member(neu, 'dependentRequired') };
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const was = Array.isArray(before[name]) ? before[name].map(String) : [];
    const is = Array.isArray(after[name]) ? after[name].map(String) : [];
    const added = is.filter((field) => !was.includes(field));
    const removed = was.filter((field) => !is.includes(field));
    const field = `\`${fieldOf(place.field, name)}\``;
    if (added.length > 0)
      effectReport(
        c,
        'dependent-required-added',
        at.old,
        at.neu,
        place,
        `${field} now needs ${list(added)} beside it`,
        'narrows',
      );
    if (removed.length > 0)
      effectReport(
        c,
        'dependent-required-removed',
        at.old,
        at.neu,
        place,
        `${field} no longer needs ${list(removed)} beside it`,
        'widens',
      );
  }
}

/** allOf / anyOf / oneOf members, paired by position; if/then/else; not; array items. */
function compareComposition(c: SchemaComparison, old: Located, neu: Located, place: Place, seen: Set<string>): void {
  if (!isObject(old.node) || !isObject(neu.node)) return;
  for (const keyword of ['allOf', 'anyOf', 'oneOf'] as const) {
    const before = Array.isArray(old.node[keyword]) ? old.node[keyword] : [];
    const after = Array.isArray(neu.node[keyword]) ? neu.node[keyword] : [];
    const list = { old: member(old, keyword), neu: member(neu, keyword) };
    for (let index = 0; index < Math.min(before.length, after.length); index++)
      compareAt(c, member(list.old, index), member(list.neu, index), place, seen);
    if (before.length === after.length) continue;
    const more = after.length > before.length;
    // allOf members add constraints; anyOf/oneOf members add alternatives.
    const effect: Effect = (keyword === 'allOf') === more ? 'narrows' : 'widens';
    effectReport(
      c,
      `${kebab(keyword)}-${more ? 'added' : 'removed'}`,
      list.old,
      list.neu,
      place,
      `${phrase(place)} ${more ? 'gains' : 'loses'} ${Math.abs(after.length - before.length)} ${keyword} member(s)`,
      effect,
    );
  }
  const conditional = { old: member(old, 'if'), neu: member(neu, 'if') };
  if (conditional.old.node !== undefined || conditional.neu.node !== undefined) {
    if (!deepEqual(conditional.old.node, conditional.neu.node)) {
      effectReport(
        c,
        'condition-changed',
        conditional.old,
        conditional.neu,
        place,
        `the condition of a rule on ${phrase(place)} changed`,
        'unknown',
      );
    } else {
      compareAt(
        c,
        member(old, 'then'),
        member(neu, 'then'),
        { field: place.field, condition: conditionText(conditional.neu.node, false) },
        seen,
      );
      compareAt(
        c,
        member(old, 'else'),
        member(neu, 'else'),
        { field: place.field, condition: conditionText(conditional.neu.node, true) },
        seen,
      );
    }
  }
  const negated = { old: member(old, 'not'), neu: member(neu, 'not') };
  if (!deepEqual(negated.old.node, negated.neu.node))
    effectReport(
      c,
      'not-changed',
      negated.old,
      negated.neu,
      place,
      `the excluded values of ${phrase(place)} changed`,
      'unknown',
    );
  compareAt(
    c,
    member(old, 'items'),
    member(neu, 'items'),
    { field: `${place.field}[]`, condition: place.condition },
    seen,
  );
}

/** Per pair of contracts: whether what a `$ref` points at is the same in both, references inside included. */
const unchangedTargets = new WeakMap<object, WeakMap<object, Map<string, boolean>>>();

function refsIn(node: Json | undefined, into: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) refsIn(item, into);
  else if (isObject(node))
    for (const [key, value] of Object.entries(node))
      key === '$ref' && typeof value === 'string' ? into.push(value) : refsIn(value, into);
  return into;
}

function unchangedTarget(oldDoc: Located['doc'], newDoc: Located['doc'], ref: string): boolean {
  let byNew = unchangedTargets.get(oldDoc);
  if (!byNew) unchangedTargets.set(oldDoc, (byNew = new WeakMap()));
  let known = byNew.get(newDoc);
  if (!known) byNew.set(newDoc, (known = new Map()));
  const cached = known.get(ref);
  if (cached !== undefined) return cached;
  // Assumed unchanged while being decided, so a recursive schema does not loop.
  known.set(ref, true);
  const old = resolve({ doc: oldDoc, node: { $ref: ref }, pointer: ref });
  const neu = resolve({ doc: newDoc, node: { $ref: ref }, pointer: ref });
  const same = old.pointer === neu.pointer && unchanged(old, neu);
  known.set(ref, same);
  return same;
}

/**
 * The same subtree at the same place in both contracts, whatever its references reach: nothing to
 * compare. This keeps a diff of two large, mostly equal contracts fast.
 */
function unchanged(old: Located, neu: Located): boolean {
  return deepEqual(old.node, neu.node) && refsIn(old.node).every((ref) => unchangedTarget(old.doc, neu.doc, ref));
}

function compareAt(c: SchemaComparison, rawOld: Located, rawNew: Located, place: Place, seen: Set<string>): void {
  const old = resolve(rawOld);
  const neu = resolve(rawNew);
  if (old.node === undefined && neu.node === undefined) return;
  if (old.node === undefined || neu.node === undefined) {
    // A whole subschema (a then branch, items) appeared or went away: it adds or drops constraints.
    const appeared = old.node === undefined;
    effectReport(
      c,
      appeared ? 'schema-added' : 'schema-removed',
      old,
      neu,
      place,
      `${phrase(place)} ${appeared ? 'gains' : 'loses'} a set of rules`,
      appeared ? 'narrows' : 'widens',
    );
    return;
  }
  if (old.pointer === neu.pointer && unchanged(old, neu)) return;
  // A component reached twice through the same pair of places (a recursive schema) is compared once.
  const pair = `${old.pointer}|${neu.pointer}|${place.field}|${place.condition}`;
  if (seen.has(pair)) return;
  seen.add(pair);
  if (typeof old.node === 'boolean' || typeof neu.node === 'boolean') {
    if (old.node !== neu.node)
      effectReport(
        c,
        'schema-changed',
        old,
        neu,
        place,
        `${phrase(place)} changed from ${show(old.node)} to ${show(neu.node)}`,
        'unknown',
      );
    return;
  }
  compareTypes(c, old, neu, place);
  compareValues(c, old, neu, place);
  compareBounds(c, old, neu, place);
  compareErrorCodes(c, old, neu, place);
  compareObject(c, old, neu, place, seen);
  compareComposition(c, old, neu, place, seen);
}

/** Compares two schemas of the same message and adds the findings to `c.out`. */
export function compareSchemas(c: SchemaComparison, old: Located, neu: Located, field = ''): void {
  compareAt(c, old, neu, { field, condition: '' }, new Set());
}
