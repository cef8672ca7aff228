// Invalid requests derived from the request schemas: one per declared rule, each starting from a valid
// base (the contract's examples) and changing one thing. A walk over the schema (references, allOf,
// if/then, not, nested objects and arrays) proposes candidate values for every keyword; the contract's
// ajv then keeps, per rule, the candidate that breaks that rule and nothing elsewhere. The errors ajv
// reports for the kept value are what the expected answer is computed from (`expectedAnswer`), so the
// suite never states a code, a status or a limit itself.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { escapePointerToken, isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject, OperationModel } from '@payments-contract/contract/model/types';
import { synthesize, typesOf, type Hints, type SchemaTools } from './synthesize.js';

export interface Rule {
  /** Identity across bases: where the keyword sits in the schema and where it applies in the value. */
  id: string;
  keyword: string;
  /** JSON Pointer of the value the rule judges (as ajv reports it). */
  instancePath: string;
  /** Schema path of the keyword, relative to the referenced schema that holds it (`#/properties/x/pattern`). */
  schemaPath: string;
  /** The reference (`#/components/schemas/X`) that schema path is relative to; undefined at the root. */
  resource?: string;
  description: string;
}

export interface Violation {
  rule: Rule;
  /** The whole invalid value (a request body, a parameter value). */
  value: Json;
  /** What the contract's ajv reports for it, `if` bookkeeping left out. */
  errors: ErrorObject[];
}

export interface Unconstructed {
  rule: Rule;
  reason: string;
}

export interface DeriveOptions {
  hints?: Hints;
  /** Rejects candidate values the request cannot carry (an empty path segment). */
  accept?: (value: Json) => boolean;
}

interface WalkContext {
  tools: SchemaTools;
  hints: Hints;
  /** The base being walked, possibly adjusted so that a condition holds. */
  root: Json;
  /** The whole schema being walked (to check a base after adding to it). */
  schema: Json;
  /** The reference the current schema was reached through (ajv's paths may be relative to it). */
  resource?: string;
  rules: Map<string, { rule: Rule; candidates: Json[] }>;
  /** Per bound rule (same ids as `rules`), values exactly at the bound on its allowed side. */
  edges: Map<string, { rule: Rule; candidates: Json[] }>;
  /** Per rule under a condition (same ids), the rule's breaking values with the condition made not to hold. */
  otherBranch: Map<string, { rule: Rule; candidates: Json[] }>;
  /** The `if`s whose `then` is being walked, innermost last: where each applies and what it tests. */
  conditions: { path: string[]; schema: JsonObject; declared: JsonObject }[];
}

const pointer = (path: readonly string[]): string => path.map((token) => `/${escapePointerToken(token)}`).join('');
const clone = <T extends Json>(value: T): T => structuredClone(value);

export function getAt(root: Json | undefined, path: readonly string[]): Json | undefined {
  let node = root;
  for (const token of path) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/** A copy of `root` with the value at `path` replaced (undefined deletes it). */
export function setAt(root: Json, path: readonly string[], value: Json | undefined): Json {
  if (path.length === 0) return value ?? null;
  const copy = clone(root);
  const parent = getAt(copy, path.slice(0, -1));
  const last = path.at(-1) as string;
  if (Array.isArray(parent)) {
    if (value === undefined) parent.splice(Number(last), 1);
    else parent[Number(last)] = value;
  } else if (isObject(parent)) {
    if (value === undefined) delete parent[last];
    else parent[last] = value;
  }
  return copy;
}

function collect(
  into: Map<string, { rule: Rule; candidates: Json[] }>,
  context: WalkContext,
  rule: Omit<Rule, 'id' | 'resource'>,
  roots: Json[],
  detail: string,
): void {
  const id = `${context.resource ?? ''}${rule.schemaPath}|${rule.keyword}|${rule.instancePath}|${detail}`;
  const entry = into.get(id) ?? {
    rule: { ...rule, id, ...(context.resource === undefined ? {} : { resource: context.resource }) },
    candidates: [],
  };
  entry.candidates.push(...roots);
  into.set(id, entry);
}

function emit(context: WalkContext, rule: Omit<Rule, 'id' | 'resource'>, roots: Json[], detail = ''): void {
  collect(context.rules, context, rule, roots, detail);
  // A rule under a condition must not hold where the condition does not: its breaking values, on the other branch.
  const innermost = context.conditions.at(-1);
  if (innermost)
    collect(
      context.otherBranch,
      context,
      rule,
      roots.flatMap((root) => conditionBroken(context, innermost, root)),
      detail,
    );
}

/** Values exactly at a bound, on its allowed side, for the rule `emit` records with the same arguments. */
function emitEdge(context: WalkContext, rule: Omit<Rule, 'id' | 'resource'>, roots: Json[]): void {
  collect(context.edges, context, rule, roots, '');
}

/** Property declarations of an object schema, through references and allOf (not through conditions). */
function declaredOf(tools: SchemaTools, schema: Json | undefined, depth = 0): JsonObject {
  const resolved = tools.deref(schema);
  if (!isObject(resolved) || depth > 8) return {};
  // Boolean property schemas (`x: true` declares, `x: false` forbids) describe no value to build from.
  const own = Object.fromEntries(
    Object.entries(isObject(resolved.properties) ? resolved.properties : {}).filter(([, property]) =>
      isObject(property),
    ),
  );
  const members = Array.isArray(resolved.allOf) ? resolved.allOf : [];
  return Object.assign({}, ...members.map((member) => declaredOf(tools, member, depth + 1)), own) as JsonObject;
}

const SAMPLE_TYPES: Array<[string, Json]> = [
  ['number', 12345],
  ['string', 'conformance'],
  ['boolean', true],
  ['object', {}],
  ['array', []],
  ['null', null],
];

function wrongTypeValues(schema: JsonObject): Json[] {
  const allowed = typesOf(schema);
  const ok = (type: string): boolean => allowed.includes(type) || (type === 'number' && allowed.includes('integer'));
  return SAMPLE_TYPES.filter(([type]) => !ok(type)).map(([, value]) => value);
}

function notInList(list: readonly Json[], current: Json): Json[] {
  const strings = list.filter((v): v is string => typeof v === 'string');
  const numbers = list.filter((v): v is number => typeof v === 'number');
  const first = strings[0] ?? (typeof current === 'string' ? current : 'conformance');
  const candidates: Json[] = [`${first}X`, 'ZZZ', 'CONFORMANCE', first.toLowerCase(), 'conformance'];
  if (numbers.length > 0) candidates.push(Math.max(...numbers) + 1);
  return candidates.filter((c) => !list.some((v) => JSON.stringify(v) === JSON.stringify(c)));
}

function patternBreakers(pattern: string, current: string): string[] {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, 'u');
  } catch {
    return [];
  }
  // The last two break the contract's character rules (no control characters; printable ASCII).
  const tries = [
    current.slice(0, -1),
    `${current}0`,
    `${current}!`,
    `!${current}`,
    current.toLowerCase(),
    current.toUpperCase(),
    '!',
    '@@@',
    'a'.repeat(Math.max(1, current.length)),
    '0'.repeat(Math.max(1, current.length)),
    '',
    `${current}\u0007`,
    `${current}\u00e9`,
  ];
  return [...new Set(tries)].filter((candidate) => !regex.test(candidate));
}

/**
 * Emits a rule on the value at `path`, its candidates being replacements for that value; for a bound, `inside`
 * holds the replacements exactly at the bound on its allowed side (the boundaries check sends them).
 */
function replacer(
  context: WalkContext,
  path: string[],
  schemaPath: string,
  condition: string,
): (keyword: string, description: string, values: Json[], inside?: Json[]) => void {
  const at = pointer(path);
  return (keyword, description, values, inside) => {
    const rule = {
      keyword,
      instancePath: at,
      schemaPath: `${schemaPath}/${keyword}`,
      description: `${at || '(root)'}: ${description}${condition}`,
    };
    emit(
      context,
      rule,
      values.map((v) => setAt(context.root, path, v)),
    );
    if (inside)
      emitEdge(
        context,
        rule,
        inside.map((v) => setAt(context.root, path, v)),
      );
  };
}

/** A string of exactly `length` characters built from `value` (cut, or padded with its last character). */
const toLength = (value: string, length: number): string =>
  value.length >= length ? value.slice(0, length) : value + (value.at(-1) ?? 'a').repeat(length - value.length);
/** The step between adjacent allowed numbers next to an exclusive bound. */
const stepOf = (schema: JsonObject): number => (typeof schema.multipleOf === 'number' ? schema.multipleOf : 1);

function scalarRules(
  context: WalkContext,
  schema: JsonObject,
  path: string[],
  schemaPath: string,
  value: Json,
  condition: string,
): void {
  const put = replacer(context, path, schemaPath, condition);
  const { tools } = context;
  if (schema.type !== undefined)
    put('type', `wrong type (not ${typesOf(schema).join(' or ')})`, wrongTypeValues(schema));
  if (Array.isArray(schema.enum)) put('enum', 'not one of the allowed values', notInList(schema.enum, value));
  if (schema.const !== undefined) put('const', 'not the required constant', notInList([schema.const], value));
  if (typeof value === 'string') {
    const first = value[0] ?? 'a';
    const last = value.at(-1) ?? 'a';
    if (typeof schema.minLength === 'number' && schema.minLength > 0) {
      const min = schema.minLength;
      put(
        'minLength',
        `shorter than ${min}`,
        [value.slice(0, min - 1), first.repeat(min - 1)],
        [toLength(value, min), first.repeat(min), 'a'.repeat(min), '0'.repeat(min)],
      );
    }
    if (typeof schema.maxLength === 'number') {
      const max = schema.maxLength;
      const over = max + 1;
      put(
        'maxLength',
        `longer than ${max}`,
        [value.length < over ? value + last.repeat(over - value.length) : value, 'a'.repeat(over), '0'.repeat(over)],
        [toLength(value, max), 'a'.repeat(max), '0'.repeat(max)],
      );
    }
    if (typeof schema.pattern === 'string')
      put('pattern', `does not match ${schema.pattern}`, patternBreakers(schema.pattern, value));
    if (typeof schema.format === 'string') {
      const format = schema.format;
      put(
        'format',
        `not a valid ${format}`,
        [`${value}!`, 'conformance', `not a ${format}`].filter(
          (c) => tools.validate({ type: 'string', format }, c).length > 0,
        ),
      );
    }
  }
  if (typeof value === 'number') {
    const step = stepOf(schema);
    if (typeof schema.minimum === 'number')
      put('minimum', `below the minimum ${schema.minimum}`, [schema.minimum - 1], [schema.minimum]);
    if (typeof schema.exclusiveMinimum === 'number')
      put(
        'exclusiveMinimum',
        `at or below the exclusive minimum ${schema.exclusiveMinimum}`,
        [schema.exclusiveMinimum, schema.exclusiveMinimum - 1],
        [schema.exclusiveMinimum + step],
      );
    if (typeof schema.maximum === 'number')
      put('maximum', `above the maximum ${schema.maximum}`, [schema.maximum + 1], [schema.maximum]);
    if (typeof schema.exclusiveMaximum === 'number')
      put(
        'exclusiveMaximum',
        `at or above the exclusive maximum ${schema.exclusiveMaximum}`,
        [schema.exclusiveMaximum, schema.exclusiveMaximum + 1],
        [schema.exclusiveMaximum - step],
      );
    if (typeof schema.multipleOf === 'number')
      put('multipleOf', `not a multiple of ${schema.multipleOf}`, [value + schema.multipleOf / 2]);
  }
}

/** A valid value for a property that the base lacks, from the examples' values for that name first. */
function validFor(context: WalkContext, declared: JsonObject, name: string): Json | undefined {
  return synthesize(context.tools, declared[name] ?? {}, context.hints.get(name) ?? []);
}

function objectRules(
  context: WalkContext,
  schema: JsonObject,
  path: string[],
  schemaPath: string,
  value: JsonObject,
  declared: JsonObject,
  condition: string,
): void {
  const at = pointer(path);
  const where = at || '(root)';
  const { tools } = context;
  const rule = (keyword: string, description: string): Omit<Rule, 'id' | 'resource'> => ({
    keyword,
    instancePath: at,
    schemaPath: `${schemaPath}/${keyword}`,
    description: `${where}: ${description}${condition}`,
  });
  const withValue = (changes: Record<string, Json | undefined>): Json => {
    const copy = clone(value);
    for (const [name, change] of Object.entries(changes)) {
      if (change === undefined) delete copy[name];
      else copy[name] = change;
    }
    return setAt(context.root, path, copy);
  };

  for (const name of Array.isArray(schema.required) ? schema.required.map(String) : []) {
    // Absent already: under a condition just made to hold, the adjusted base is itself the violation.
    emit(
      context,
      rule('required', `missing required field ${name}`),
      [name in value ? withValue({ [name]: undefined }) : context.root],
      name,
    );
  }
  if (isObject(schema.dependentRequired)) {
    for (const [trigger, needs] of Object.entries(schema.dependentRequired)) {
      const triggerValue = value[trigger] ?? validFor(context, declared, trigger);
      for (const needed of Array.isArray(needs) ? needs.map(String) : []) {
        emit(
          context,
          rule('dependentRequired', `${trigger} without ${needed}`),
          triggerValue === undefined ? [] : [withValue({ [trigger]: triggerValue, [needed]: undefined })],
          `${trigger}>${needed}`,
        );
      }
    }
  }
  const extraSchema = schema.additionalProperties;
  if (typeof schema.maxProperties === 'number') {
    const filler = synthesize(tools, isObject(extraSchema) ? extraSchema : {}, []);
    const extra: Record<string, Json> = {};
    for (let i = Object.keys(value).length; i <= schema.maxProperties && filler !== undefined; i++)
      extra[`conformance_${i}`] = filler;
    emit(
      context,
      rule('maxProperties', `more than ${schema.maxProperties} properties`),
      filler === undefined ? [] : [withValue(extra)],
    );
  }
  if (schema.propertyNames !== undefined) {
    const names = schema.propertyNames;
    const resolved = tools.deref(names);
    const proposals = [
      ...stringsIn(names),
      ...Object.keys(declared),
      ...(isObject(resolved) && typeof resolved.maxLength === 'number' ? ['k'.repeat(resolved.maxLength + 1)] : []),
      'conformance!',
    ];
    const roots = [...new Set(proposals)]
      .filter((name) => !(name in value) && tools.validate(names, name).length > 0)
      .flatMap((name) => {
        const property =
          declared[name] !== undefined
            ? validFor(context, declared, name)
            : synthesize(tools, isObject(extraSchema) ? extraSchema : {}, []);
        return property === undefined ? [] : [withValue({ [name]: property })];
      });
    emit(context, rule('propertyNames', 'a property name that is not allowed'), roots);
  }

  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, sub] of Object.entries(properties)) {
    const child = [...path, name];
    const childPath = `${schemaPath}/properties/${escapePointerToken(name)}`;
    if (sub === false) {
      const allowed = validFor(context, declared, name);
      emit(
        context,
        {
          keyword: 'false schema',
          instancePath: pointer(child),
          schemaPath: `${childPath}/false schema`,
          description: `${pointer(child)}: field not allowed here${condition}`,
        },
        allowed === undefined ? [] : [withValue({ [name]: allowed })],
      );
      continue;
    }
    if (!isObject(sub)) continue;
    const childDeclared = { ...declaredOf(tools, sub), ...declaredOf(tools, declared[name]) };
    if (name in value) {
      walk(context, sub, child, childPath, childDeclared, condition);
      continue;
    }
    // An optional field the base leaves out: add a valid value first, then break it. When the addition
    // itself breaks another rule, the candidates are not exact and another base (or none) serves.
    const added = synthesize(tools, sub, context.hints.get(name) ?? []) ?? validFor(context, declared, name);
    if (added === undefined) continue;
    walk(
      { ...context, root: completeObject(context, path, withValue({ [name]: added }), declared) },
      sub,
      child,
      childPath,
      childDeclared,
      condition,
    );
  }
  if (isObject(extraSchema)) {
    const extraName = Object.keys(value).find((name) => !(name in properties));
    const added = extraName === undefined ? synthesize(tools, extraSchema, []) : undefined;
    const name = extraName ?? 'conformance';
    const root = extraName === undefined && added !== undefined ? withValue({ [name]: added }) : context.root;
    if (extraName !== undefined || added !== undefined)
      walk({ ...context, root }, extraSchema, [...path, name], `${schemaPath}/additionalProperties`, {}, condition);
  }
}

/**
 * Adds what an added field makes necessary (`dependentRequired`, a conditional `required`) to the object at
 * `path`, so the base stays valid there.
 */
function completeObject(context: WalkContext, path: string[], root: Json, declared: JsonObject): Json {
  let current = root;
  for (let round = 0; round < 3; round++) {
    const missing = context.tools
      .validate(context.schema, current)
      .filter(
        (e) => e.instancePath === pointer(path) && (e.keyword === 'required' || e.keyword === 'dependentRequired'),
      )
      .map((e) => String((e.params as { missingProperty?: unknown }).missingProperty));
    if (missing.length === 0) break;
    const object = getAt(current, path);
    if (!isObject(object)) break;
    const copy = clone(object);
    for (const name of missing) {
      const value = validFor(context, declared, name);
      if (value !== undefined) copy[name] = value;
    }
    current = setAt(current, path, copy);
  }
  return current;
}

/** Every string constant (enum, const) inside a schema: names a propertyNames rule may forbid. */
function stringsIn(schema: Json): string[] {
  if (Array.isArray(schema)) return schema.flatMap(stringsIn);
  if (!isObject(schema)) return [];
  const own = [
    ...(Array.isArray(schema.enum) ? schema.enum : []),
    ...(schema.const === undefined ? [] : [schema.const]),
  ].filter((v): v is string => typeof v === 'string');
  return [
    ...own,
    ...Object.entries(schema)
      .filter(([key]) => key !== 'enum' && key !== 'const')
      .flatMap(([, child]) => stringsIn(child)),
  ];
}

function arrayRules(
  context: WalkContext,
  schema: JsonObject,
  path: string[],
  schemaPath: string,
  value: Json[],
  condition: string,
): void {
  const put = replacer(context, path, schemaPath, condition);
  const item = value[0] ?? synthesize(context.tools, schema.items ?? {}, []);
  const items = (count: number): Json[] =>
    item === undefined ? [] : [Array.from({ length: count }, (_, index) => value[index] ?? item)];
  if (typeof schema.maxItems === 'number' && item !== undefined)
    put(
      'maxItems',
      `more than ${schema.maxItems} items`,
      [Array.from({ length: schema.maxItems + 1 }, () => item)],
      items(schema.maxItems),
    );
  if (typeof schema.minItems === 'number' && schema.minItems > 0)
    put(
      'minItems',
      `fewer than ${schema.minItems} items`,
      [value.slice(0, schema.minItems - 1)],
      items(schema.minItems),
    );
  if (isObject(schema.items) && item !== undefined) {
    const root = value.length > 0 ? context.root : setAt(context.root, path, [item]);
    walk(
      { ...context, root },
      schema.items,
      [...path, '0'],
      `${schemaPath}/items`,
      declaredOf(context.tools, schema.items),
      condition,
    );
  }
}

/** Adjusts an object so that an `if` holds, from the condition's own constants and the examples' values. */
function makeConditionHold(
  context: WalkContext,
  condition: JsonObject,
  value: JsonObject,
  declared: JsonObject,
): JsonObject | undefined {
  const { tools } = context;
  if (tools.validate(condition, value).length === 0) return value;
  const copy = clone(value);
  const properties = isObject(condition.properties) ? condition.properties : {};
  const names = new Set([
    ...Object.keys(properties),
    ...(Array.isArray(condition.required) ? condition.required.map(String) : []),
  ]);
  for (const name of names) {
    const wanted = properties[name] ?? {};
    if (name in copy && tools.validate(wanted, copy[name]).length === 0) continue;
    const own = tools.deref(declared[name]);
    const pool = [
      ...stringsIn(wanted),
      ...(context.hints.get(name) ?? []),
      ...(isObject(own) && Array.isArray(own.enum) ? own.enum : []),
      synthesize(tools, declared[name] ?? {}, []),
    ];
    const fit = pool.find(
      (candidate) =>
        candidate !== undefined &&
        tools.validate(wanted, candidate).length === 0 &&
        tools.validate(declared[name] ?? {}, candidate).length === 0,
    );
    if (fit === undefined) return undefined;
    copy[name] = fit;
  }
  if (tools.validate(condition, copy).length === 0) return copy;
  // A negated condition (`if: {not: ...}`) holds once the fields it names are gone.
  const without = clone(copy);
  for (const name of stringsIn(condition.not ?? {}).concat(Object.keys(declaredOf(tools, condition.not ?? {}))))
    delete without[name];
  return tools.validate(condition, without).length === 0 ? without : undefined;
}

/**
 * Copies of `root` in which the condition no longer holds at its object: one field it tests changed to a
 * value (from the condition's own constants, the examples' values, the field's enum) that fails it, or left
 * out when the condition requires it.
 */
function conditionBroken(context: WalkContext, condition: WalkContext['conditions'][number], root: Json): Json[] {
  const { tools } = context;
  const object = getAt(root, condition.path);
  if (!isObject(object)) return [];
  const tested = condition.schema;
  const properties = isObject(tested.properties) ? tested.properties : {};
  const required = Array.isArray(tested.required) ? tested.required.map(String) : [];
  const results: Json[] = [];
  for (const name of new Set([...Object.keys(properties), ...required])) {
    const own = tools.deref(condition.declared[name]);
    const pool = [
      ...stringsIn(properties[name] ?? {}),
      ...(context.hints.get(name) ?? []),
      ...(isObject(own) && Array.isArray(own.enum) ? own.enum : []),
    ];
    const changes: (Json | undefined)[] = [
      ...new Map(pool.map((candidate) => [JSON.stringify(candidate), candidate])).values(),
    ];
    if (required.includes(name)) changes.push(undefined);
    for (const change of changes) {
      const copy = clone(object);
      if (change === undefined) delete copy[name];
      else if (tools.validate(condition.declared[name] ?? {}, change).length > 0) continue;
      else copy[name] = change;
      if (tools.validate(tested, copy).length > 0) results.push(setAt(root, condition.path, copy));
    }
  }
  return results;
}

function conditionText(condition: JsonObject): string {
  return ` (when ${JSON.stringify(condition.properties ?? condition)})`;
}

function walk(
  context: WalkContext,
  schema: Json,
  path: string[],
  schemaPath: string,
  declared: JsonObject,
  condition: string,
): void {
  if (!isObject(schema)) return;
  const { tools } = context;
  if (typeof schema.$ref === 'string') {
    // ajv reports keywords of a referenced schema relative to that schema.
    walk({ ...context, resource: schema.$ref }, tools.deref(schema) ?? {}, path, '#', declared, condition);
    const { $ref: _ref, ...siblings } = schema;
    walk(context, siblings, path, schemaPath, declared, condition);
    return;
  }
  const value = getAt(context.root, path);
  if (value === undefined) return;
  // Declarations seen further out win: a conditional branch names a field with a partial schema.
  const here = { ...declaredOf(tools, schema), ...declared };
  scalarRules(context, schema, path, schemaPath, value, condition);
  if (isObject(value)) objectRules(context, schema, path, schemaPath, value, here, condition);
  if (Array.isArray(value)) arrayRules(context, schema, path, schemaPath, value, condition);
  (Array.isArray(schema.allOf) ? schema.allOf : []).forEach((member, index) =>
    walk(context, member, path, `${schemaPath}/allOf/${index}`, here, condition),
  );
  if (isObject(schema.if) && isObject(value) && schema.then !== undefined) {
    const adjusted = makeConditionHold(context, schema.if, value, here);
    const root = adjusted === undefined ? context.root : setAt(context.root, path, adjusted);
    const conditions = [...context.conditions, { path, schema: schema.if, declared: here }];
    walk(
      { ...context, root, conditions },
      schema.then,
      path,
      `${schemaPath}/then`,
      here,
      `${condition}${conditionText(schema.if)}`,
    );
  }
  if (schema.not !== undefined) notRule(context, tools.deref(schema.not), path, schemaPath, value, here, condition);
}

/** Breaks `not: S` by making S hold: adding the fields it requires, or taking one of its constants. */
function notRule(
  context: WalkContext,
  negated: Json | undefined,
  path: string[],
  schemaPath: string,
  value: Json,
  declared: JsonObject,
  condition: string,
): void {
  if (!isObject(negated)) return;
  const { tools } = context;
  const candidates: Json[] = [];
  if (isObject(value)) {
    const copy = clone(value);
    for (const name of Array.isArray(negated.required) ? negated.required.map(String) : []) {
      const added = name in copy ? copy[name] : validFor(context, declared, name);
      if (added !== undefined) copy[name] = added;
    }
    candidates.push(copy);
  } else {
    candidates.push(...stringsIn(negated));
  }
  const at = pointer(path);
  const roots = candidates
    .filter((c) => tools.validate(negated, c).length === 0)
    .map((c) => setAt(context.root, path, c));
  emit(
    context,
    {
      keyword: 'not',
      instancePath: at,
      schemaPath: `${schemaPath}/not`,
      description: `${at || '(root)'}: a combination the contract forbids${condition}`,
    },
    roots,
  );
}

const relevant = (errors: ErrorObject[]): ErrorObject[] => errors.filter((error) => error.keyword !== 'if');

/**
 * Whether ajv's schema path names the rule's keyword. ajv reports a keyword of a referenced schema either
 * relative to that schema (`#/required`) or, when it inlined the reference, absolutely
 * (`<document id>#/components/schemas/X/required`).
 */
function sameKeyword(error: ErrorObject, rule: Rule): boolean {
  if (error.keyword !== rule.keyword || error.instancePath !== rule.instancePath) return false;
  const path = error.schemaPath.slice(error.schemaPath.indexOf('#'));
  return (
    path === rule.schemaPath || (rule.resource !== undefined && path === `${rule.resource}${rule.schemaPath.slice(1)}`)
  );
}

/** The candidate that breaks the rule and nothing at another place, preferring the fewest errors. */
function pick(
  tools: SchemaTools,
  schema: Json,
  rule: Rule,
  candidates: Json[],
  accept: (value: Json) => boolean,
): Violation | undefined {
  let best: { violation: Violation; score: number } | undefined;
  for (const value of candidates) {
    if (!accept(value)) continue;
    const errors = relevant(tools.validate(schema, value));
    const hits = errors.some((e) => sameKeyword(e, rule));
    if (!hits || errors.some((e) => e.instancePath !== rule.instancePath)) continue;
    const score = errors.length + (errors.every((e) => e.keyword === rule.keyword) ? 0 : 100);
    if (!best || score < best.score) best = { violation: { rule, value, errors }, score };
  }
  return best?.violation;
}

function whyNot(candidates: Json[], accept: DeriveOptions['accept']): string {
  if (candidates.length === 0) return 'no value breaking it could be built';
  if (accept && !candidates.some(accept))
    return 'the request cannot carry any value that breaks it (an empty path segment addresses another route)';
  return 'every value tried also breaks another rule elsewhere';
}

/** One violation per rule of `schema`, each from the first base (in order) that yields an exact one. */
export function deriveViolations(
  tools: SchemaTools,
  schema: Json,
  bases: readonly Json[],
  options: DeriveOptions = {},
): { violations: Violation[]; unconstructed: Unconstructed[] } {
  const rules = new Map<string, { rule: Rule; candidates: Json[] }>();
  const hints = options.hints ?? new Map<string, Json[]>();
  for (const base of bases)
    walk(
      { tools, hints, root: base, schema, rules, edges: new Map(), otherBranch: new Map(), conditions: [] },
      schema,
      [],
      '#',
      {},
      '',
    );
  const violations: Violation[] = [];
  const unconstructed: Unconstructed[] = [];
  const sent = new Set<string>();
  for (const { rule, candidates } of rules.values()) {
    const violation = pick(tools, schema, rule, candidates, options.accept ?? (() => true));
    // Two rules met by the same value (a `then` repeating `type: object`) need one request.
    if (violation && sent.has(JSON.stringify(violation.value))) continue;
    if (violation) sent.add(JSON.stringify(violation.value));
    if (violation) violations.push(violation);
    else unconstructed.push({ rule, reason: whyNot(candidates, options.accept) });
  }
  return { violations, unconstructed };
}

/** A valid value that sits where a rule draws its line: exactly at a bound, or breaking a conditional rule where its condition does not hold. */
export interface Admissible {
  rule: Rule;
  /** `edge`: at the bound on its allowed side; `other branch`: the rule broken with its condition not holding. */
  kind: 'edge' | 'other branch';
  value: Json;
}

/** The first candidate valid against the whole schema, from a walk's collected candidates per rule. */
function admissible(
  tools: SchemaTools,
  schema: Json,
  collected: Map<string, { rule: Rule; candidates: Json[] }>,
  kind: Admissible['kind'],
  accept: (value: Json) => boolean,
): { found: Admissible[]; missing: Unconstructed[] } {
  const found: Admissible[] = [];
  const missing: Unconstructed[] = [];
  for (const { rule, candidates } of collected.values()) {
    const value = candidates.find(
      (candidate) => accept(candidate) && relevant(tools.validate(schema, candidate)).length === 0,
    );
    if (value !== undefined) found.push({ rule, kind, value });
    else
      missing.push({
        rule,
        reason:
          candidates.length === 0 ? `no ${kind} value could be built` : `every ${kind} value tried breaks another rule`,
      });
  }
  return { found, missing };
}

/**
 * The valid values on the line each rule draws (the boundaries check's requests): for every bound
 * (minimum, maximum, exclusive ones, minLength, maxLength, minItems, maxItems), the value exactly at it on
 * its allowed side; for every rule under an `if`, a value that breaks it where the condition does not hold.
 * The same walk as `deriveViolations`, so each bound's outside value (negative_data) and inside value pair.
 */
export function deriveAdmissible(
  tools: SchemaTools,
  schema: Json,
  bases: readonly Json[],
  options: DeriveOptions = {},
): { values: Admissible[]; unconstructed: Unconstructed[] } {
  const hints = options.hints ?? new Map<string, Json[]>();
  const edges = new Map<string, { rule: Rule; candidates: Json[] }>();
  const otherBranch = new Map<string, { rule: Rule; candidates: Json[] }>();
  for (const base of bases)
    walk(
      { tools, hints, root: base, schema, rules: new Map(), edges, otherBranch, conditions: [] },
      schema,
      [],
      '#',
      {},
      '',
    );
  const accept = options.accept ?? (() => true);
  const atEdges = admissible(tools, schema, edges, 'edge', accept);
  // A rule that cannot be broken on the other branch (a `type` the whole schema repeats) says nothing there.
  const onOtherBranch = admissible(
    tools,
    schema,
    new Map([...otherBranch].filter(([, entry]) => entry.rule.keyword !== 'type')),
    'other branch',
    accept,
  );
  return {
    values: [...atEdges.found, ...onOtherBranch.found],
    unconstructed: [...atEdges.missing, ...onOtherBranch.missing],
  };
}

export interface ExpectedAnswer {
  status: number;
  errorCode: string;
  /** Why this answer: the rule's own code, or the operation's generic validation error. */
  source: 'x-error-codes' | 'x-validation-error' | 'x-malformed-body-error';
}

/** The code a schema error carries through `x-error-codes` on the schema object holding its keyword. */
export function ruleCode(error: ErrorObject): string | undefined {
  const codes = error.parentSchema?.['x-error-codes'];
  const code = isObject(codes as Json) ? (codes as JsonObject)[error.keyword] : undefined;
  return typeof code === 'string' ? code : undefined;
}

/**
 * The contract's answer to a request with these schema errors: the rules' own code when every error maps
 * to the same one (at the status where the operation documents it), else the operation's
 * `x-validation-error`; undefined when the contract documents no answer.
 */
export function expectedAnswer(operation: OperationModel, errors: ErrorObject[]): ExpectedAnswer | undefined {
  const codes = relevant(errors).map(ruleCode);
  const own = codes[0];
  if (own !== undefined && codes.every((code) => code === own)) {
    const response = operation.responses.find((r) => r.errorCodes.includes(own));
    if (response) return { status: response.status, errorCode: own, source: 'x-error-codes' };
  }
  return operation.validationError
    ? {
        status: operation.validationError.status,
        errorCode: operation.validationError.error_code,
        source: 'x-validation-error',
      }
    : undefined;
}
