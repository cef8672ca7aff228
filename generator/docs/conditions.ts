// Conditional schemas (`if`/`then`/`else`) as the docs page shows them. Redoc names the two branches after the
// `if`'s and the `else`'s title, or "case 1" and "case 2"; the page names them after the condition in words
// ("status is FAILED", "status is PENDING or COMPLETED"). Where a schema is a state machine's resource and
// the condition is on the machine's field, the branch its initial state takes comes first: a created
// disbursement is PENDING, so its PENDING shape is what a reader meets first, not the FAILED one. Swapping is
// `if: C, then: T, else: E` into `if: not C, then: E, else: T`, which validates exactly the same.
import { isObject } from '@payments-contract/model';
import type { Json, JsonObject } from '@payments-contract/model/types';

/** A condition on one field: its value is one of `values` (or, `negated`, none of them). */
interface FieldCondition {
  field: string;
  values: Json[];
  negated: boolean;
}

/** Reads the `if`s this page can put in words: `{properties: {f: {const|enum|not}}, required: [f]}`, or `not` that. */
function readCondition(schema: Json | undefined): FieldCondition | undefined {
  if (!isObject(schema)) return undefined;
  if (schema.not !== undefined && Object.keys(schema).length === 1) {
    const inner = readCondition(schema.not);
    return inner && { ...inner, negated: !inner.negated };
  }
  const properties = isObject(schema.properties) ? Object.entries(schema.properties) : [];
  const [entry] = properties;
  if (properties.length !== 1 || entry === undefined) return undefined;
  const [field, test] = entry;
  if (!isObject(test)) return undefined;
  if (test.const !== undefined) return { field, values: [test.const], negated: false };
  if (Array.isArray(test.enum)) return { field, values: test.enum, negated: false };
  const negated = readCondition({ properties: { [field]: test.not ?? null } });
  return negated && { ...negated, negated: !negated.negated };
}

const word = (value: Json): string => (typeof value === 'string' ? value : JSON.stringify(value));
const either = (values: Json[]): string =>
  values.length <= 1
    ? values.map(word).join('')
    : `${values.slice(0, -1).map(word).join(', ')} or ${word(values.at(-1) ?? null)}`;

/** The condition in words; with the field's every value known (a state machine's states), said positively. */
function inWords(condition: FieldCondition, every?: readonly string[]): string {
  if (condition.negated && every) {
    const rest = every.filter((value) => !condition.values.includes(value));
    return `${condition.field} is ${either(rest)}`;
  }
  if (condition.negated && condition.values.length > 1)
    return `${condition.field} is none of ${condition.values.map(word).join(', ')}`;
  return `${condition.field} is ${condition.negated ? 'not ' : ''}${either(condition.values)}`;
}

const holds = (condition: FieldCondition, value: string): boolean =>
  condition.values.includes(value) !== condition.negated;

/** A state machine's resource, field, states and initial state (`x-state-machines`). */
interface Machine {
  field: string;
  states: string[];
  initial: string;
}

function machinesOf(doc: JsonObject): Map<string, Machine> {
  const machines = new Map<string, Machine>();
  for (const machine of Object.values(isObject(doc['x-state-machines']) ? doc['x-state-machines'] : {})) {
    if (!isObject(machine) || typeof machine.resource !== 'string' || typeof machine.field !== 'string') continue;
    if (!Array.isArray(machine.states) || typeof machine.initial !== 'string') continue;
    machines.set(machine.resource, {
      field: machine.field,
      states: machine.states.filter((state): state is string => typeof state === 'string'),
      initial: machine.initial,
    });
  }
  return machines;
}

/** One conditional schema named, and turned so its machine's initial state takes the first branch. */
function named(schema: JsonObject, machine: Machine | undefined): JsonObject {
  const read = readCondition(schema.if);
  if (read === undefined) return schema;
  const every = machine?.field === read.field ? machine.states : undefined;
  const swap = every !== undefined && machine !== undefined && !holds(read, machine.initial);
  const condition = swap ? { ...read, negated: !read.negated } : read;
  const [first, second] = swap ? [schema.else, schema.then] : [schema.then, schema.else];
  const { if: _if, then: _then, else: _else, ...rest } = schema;
  const branch = (value: Json | undefined): JsonObject => (isObject(value) ? value : {});
  return {
    ...rest,
    if: { ...(swap ? { not: schema.if ?? null } : branch(schema.if)), 'x-displayName': inWords(condition, every) },
    ...(first === undefined ? {} : { then: first }),
    // Without an else, every value outside the condition is valid as it is: an empty else says the same.
    else: { ...branch(second), 'x-displayName': inWords({ ...condition, negated: !condition.negated }, every) },
  };
}

function walk(value: Json, machine: Machine | undefined): Json {
  if (Array.isArray(value)) return value.map((item) => walk(item, machine));
  if (!isObject(value)) return value;
  const walked = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, walk(item, machine)]));
  return walked.if === undefined ? walked : named(walked, machine);
}

/** The document with every conditional schema's branches named, the initial state's branch first. */
export function withConditionNames(doc: JsonObject): JsonObject {
  const machines = machinesOf(doc);
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  // The contract's conditional schemas are all components (spec/components/schemas).
  const shown = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [name, walk(schema, machines.get(name))]),
  );
  return { ...doc, components: { ...components, schemas: shown } };
}
