// Valid values built from a schema alone, for fields the contract's examples leave out: a violation
// starts from a valid request and changes one thing, so a field it breaks must first exist with a valid
// value. Every value offered is checked against the schema with the contract's own ajv; the guesses
// below are only where the search starts, never a statement of what the contract allows.
import type { ErrorObject } from 'ajv/dist/2020.js';
import { isObject } from '@payments-contract/contract/model';
import type { Json, JsonObject } from '@payments-contract/contract/model/types';

/** What the derivation needs from the contract (a `Contract` is one). */
export interface SchemaTools {
  deref: (value: Json | undefined) => Json | undefined;
  validate: (schema: Json, value: unknown) => ErrorObject[];
}

/** Values seen for a property name anywhere in the operation's examples, tried first. */
export type Hints = ReadonlyMap<string, readonly Json[]>;

const CLASS_PREFERENCE = ['a', 'A', '0', '1', 'x', 'Z', '-', '_'];

/** A character class `[...]` as a membership test (ranges, escapes \d \s \w, negation). */
function parseClass(
  source: string,
  start: number,
): { end: number; test: (char: string) => boolean; first: string | undefined } {
  let index = start + 1;
  const negated = source[index] === '^';
  if (negated) index++;
  const tests: Array<(char: string) => boolean> = [];
  let first: string | undefined;
  while (index < source.length && source[index] !== ']') {
    let char = source[index] as string;
    if (char === '\\') {
      const escaped = source[index + 1] ?? '';
      index += 2;
      const shorthand = SHORTHANDS[escaped];
      if (shorthand) {
        tests.push(shorthand.test);
        first ??= shorthand.sample;
        continue;
      }
      char = escaped;
    } else {
      index++;
    }
    if (source[index] === '-' && source[index + 1] !== ']' && index + 1 < source.length) {
      const to = source[index + 1] as string;
      index += 2;
      const low = char;
      tests.push((c) => c >= low && c <= to);
    } else {
      const literal = char;
      tests.push((c) => c === literal);
    }
    first ??= char;
  }
  const inClass = (c: string): boolean => tests.some((t) => t(c));
  const test = negated ? (c: string) => !inClass(c) : inClass;
  return { end: index + 1, test, first: negated ? CLASS_PREFERENCE.find(test) : first };
}

const SHORTHANDS: Record<string, { test: (char: string) => boolean; sample: string }> = {
  d: { test: (c) => /\d/.test(c), sample: '0' },
  s: { test: (c) => /\s/.test(c), sample: ' ' },
  w: { test: (c) => /\w/.test(c), sample: 'a' },
};

/** Reads a quantifier after an atom: how many times to repeat it in a minimal sample. */
function parseQuantifier(source: string, index: number): { end: number; count: number } {
  const char = source[index];
  if (char === '*' || char === '?') return { end: index + 1, count: 0 };
  if (char === '+') return { end: index + 1, count: 1 };
  if (char === '{') {
    const match = /^\{(\d+)(,\d*)?\}/.exec(source.slice(index));
    if (match) return { end: index + match[0].length, count: Number(match[1]) };
  }
  return { end: index, count: 1 };
}

/** Samples the alternatives of a sequence up to `)` or the end. */
function sampleSequence(source: string, start: number): { end: number; text: string } | undefined {
  let index = start;
  let text = '';
  while (index < source.length) {
    const char = source[index] as string;
    if (char === ')') break;
    if (char === '|') {
      // The first alternative is the sample; skip the rest of the group.
      let depth = 0;
      while (index < source.length && !(source[index] === ')' && depth === 0)) {
        if (source[index] === '\\') index++;
        else if (source[index] === '(') depth++;
        else if (source[index] === ')') depth--;
        index++;
      }
      break;
    }
    let atom: string | undefined;
    if (char === '^' || char === '$') {
      index++;
      continue;
    } else if (char === '[') {
      const parsed = parseClass(source, index);
      atom = parsed.first;
      index = parsed.end;
    } else if (char === '(') {
      const inner = sampleSequence(source, source.startsWith('(?:', index) ? index + 3 : index + 1);
      if (!inner || source[inner.end] !== ')') return undefined;
      atom = inner.text;
      index = inner.end + 1;
    } else if (char === '\\') {
      const escaped = source[index + 1] ?? '';
      atom = SHORTHANDS[escaped]?.sample ?? escaped;
      index += 2;
    } else if (char === '.') {
      atom = 'a';
      index++;
    } else {
      atom = char;
      index++;
    }
    if (atom === undefined) return undefined;
    const quantifier = parseQuantifier(source, index);
    index = quantifier.end;
    text += atom.repeat(quantifier.count);
  }
  return { end: index, text };
}

/** A short string matching `pattern` (simple regular expressions only), or undefined. */
export function samplePattern(pattern: string): string | undefined {
  const sample = sampleSequence(pattern, 0)?.text;
  try {
    return sample !== undefined && new RegExp(pattern, 'u').test(sample) ? sample : undefined;
  } catch {
    return undefined;
  }
}

/** Formats ajv-formats checks, with a value of each (generic JSON Schema knowledge, not the contract's). */
const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2030-01-01T00:00:00Z',
  date: '2030-01-01',
  time: '12:00:00Z',
  email: 'conformance@example.com',
  uri: 'https://example.com/conformance',
  'uri-reference': 'https://example.com/conformance',
  url: 'https://example.com/conformance',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
};

export function typesOf(schema: JsonObject): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.map(String);
  const inferred: string[] = [];
  if (isObject(schema.properties) || Array.isArray(schema.required)) inferred.push('object');
  if (schema.items !== undefined) inferred.push('array');
  if (['minLength', 'maxLength', 'pattern', 'format'].some((k) => k in schema)) inferred.push('string');
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].some((k) => k in schema)) inferred.push('number');
  return inferred;
}

const num = (value: Json | undefined): number | undefined => (typeof value === 'number' ? value : undefined);

/** Stretches or cuts a string to the schema's length bounds. */
function fitLength(text: string, schema: JsonObject): string {
  const min = num(schema.minLength) ?? 0;
  const max = num(schema.maxLength);
  const padded = text.length >= min ? text : text + (text.at(-1) ?? 'a').repeat(min - text.length);
  return max === undefined ? padded : padded.slice(0, max);
}

function stringCandidates(schema: JsonObject): Json[] {
  const seeds = [
    typeof schema.format === 'string' ? FORMAT_SAMPLES[schema.format] : undefined,
    typeof schema.pattern === 'string' ? samplePattern(schema.pattern) : undefined,
    'conformance',
    'CONFORMANCE',
  ];
  return seeds.filter((s): s is string => s !== undefined).map((s) => fitLength(s, schema));
}

function numberCandidates(schema: JsonObject): Json[] {
  const low =
    num(schema.minimum) ??
    (num(schema.exclusiveMinimum) === undefined ? undefined : (num(schema.exclusiveMinimum) as number) + 1);
  const high =
    num(schema.maximum) ??
    (num(schema.exclusiveMaximum) === undefined ? undefined : (num(schema.exclusiveMaximum) as number) - 1);
  return [low, high, 1, 0].filter((n): n is number => n !== undefined);
}

function candidatesOf(tools: SchemaTools, schema: JsonObject, depth: number): Json[] {
  const out: Json[] = [];
  if (schema.const !== undefined) out.push(schema.const);
  if (Array.isArray(schema.enum)) out.push(...schema.enum);
  if (Array.isArray(schema.examples)) out.push(...schema.examples);
  if (schema.default !== undefined) out.push(schema.default);
  for (const type of typesOf(schema)) {
    if (type === 'string') out.push(...stringCandidates(schema));
    else if (type === 'number' || type === 'integer') out.push(...numberCandidates(schema));
    else if (type === 'boolean') out.push(true, false);
    else if (type === 'null') out.push(null);
    else if (type === 'object') {
      const object = objectCandidate(tools, schema, depth);
      if (object !== undefined) out.push(object);
    } else if (type === 'array') {
      const item = synthesize(tools, schema.items ?? {}, [], depth + 1);
      out.push(
        [],
        ...(item === undefined ? [] : [Array.from({ length: Math.max(1, num(schema.minItems) ?? 1) }, () => item)]),
      );
    }
  }
  return out;
}

/** An object with each required property synthesized from its declaration. */
function objectCandidate(tools: SchemaTools, schema: JsonObject, depth: number): Json | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const object: JsonObject = {};
  for (const name of Array.isArray(schema.required) ? schema.required.map(String) : []) {
    const value = synthesize(tools, properties[name] ?? {}, [], depth + 1);
    if (value === undefined) return undefined;
    object[name] = value;
  }
  return object;
}

/** A value valid against `schema` (hints first), or undefined when none of the candidates is. */
export function synthesize(tools: SchemaTools, schema: Json, hints: readonly Json[] = [], depth = 0): Json | undefined {
  if (depth > 8) return undefined;
  const resolved = tools.deref(schema);
  if (resolved === false) return undefined;
  const candidates = [...hints, ...(isObject(resolved) ? candidatesOf(tools, resolved, depth) : []), 'conformance'];
  return candidates.find((candidate) => tools.validate(schema, candidate).length === 0);
}

/** Property name -> values, from every object in the given examples (nested ones included). */
export function collectHints(examples: readonly Json[]): Map<string, Json[]> {
  const hints = new Map<string, Json[]>();
  const visit = (value: Json): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (isObject(value)) {
      for (const [name, child] of Object.entries(value)) {
        const seen = hints.get(name) ?? [];
        if (!seen.some((s) => JSON.stringify(s) === JSON.stringify(child))) seen.push(child);
        hints.set(name, seen);
        visit(child);
      }
    }
  };
  examples.forEach(visit);
  return hints;
}
