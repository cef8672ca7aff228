// The model's extension types say what spec/x-extensions.yaml says: every kind and every enum of the schema
// is a member of the matching TypeScript union and nothing else is, and each kind of error trigger has the
// schema's properties, required where the schema requires them. The types are read with ts-morph from
// types.ts, the schema with yaml, and each side is compared with the other.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Project, ts, type Type } from 'ts-morph';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { Json, JsonObject } from './types.js';

// The schema is the spec's own file, as generator/generate.ts reads it: spec/ has no package to import it through.
const schema = parse(readFileSync(fileURLToPath(new URL('../../spec/x-extensions.yaml', import.meta.url)), 'utf8'));
const defs = schema.$defs as Record<string, JsonObject>;

const project = new Project({ compilerOptions: { strict: true }, skipAddingFilesFromTsConfig: true });
const typesFile = project.addSourceFileAtPath(fileURLToPath(new URL('./types.ts', import.meta.url)));

/** The named type alias or interface of types.ts. */
function typeNamed(name: string): Type {
  const node = typesFile.getTypeAlias(name) ?? typesFile.getInterface(name);
  if (!node) throw new Error(`types.ts declares no ${name}`);
  return node.getType();
}

/** The type of `property` of `type`, undefined (of an optional property) left out. */
function propertyType(type: Type, property: string): Type {
  const symbol = type.getProperty(property);
  if (!symbol) throw new Error(`${type.getText()} has no property ${property}`);
  return symbol.getTypeAtLocation(typesFile).getNonNullableType();
}

/** The literal members of a union of literals (or the one literal). */
function literals(type: Type): Json[] {
  return (type.isUnion() ? type.getUnionTypes() : [type]).map((member) => {
    const value = member.getLiteralValue();
    if (typeof value !== 'string' && typeof value !== 'number') throw new Error(`${member.getText()} is not a literal`);
    return value;
  });
}

/** The property names of an object type, and those of them that are required. */
function shape(type: Type): { all: string[]; required: string[] } {
  const properties = type.getProperties();
  return {
    all: properties.map((p) => p.getName()).sort(),
    required: properties
      .filter((p) => !p.hasFlags(ts.SymbolFlags.Optional))
      .map((p) => p.getName())
      .sort(),
  };
}

/** Follows a `$ref` of the schema to its `$defs` entry. */
function resolve(node: Json | undefined): JsonObject {
  let current = node;
  while (typeof current === 'object' && current !== null && !Array.isArray(current) && current.$ref !== undefined)
    current = defs[String(current.$ref).replace('#/$defs/', '')];
  if (typeof current !== 'object' || current === null || Array.isArray(current)) throw new Error('not a schema');
  return current;
}

/** The `enum` (or `const`) of a schema node, sorted. */
function schemaEnum(node: Json | undefined): Json[] {
  const resolved = resolve(node);
  const values = Array.isArray(resolved.enum) ? resolved.enum : [resolved.const ?? null];
  return [...values].sort();
}

const property = (node: Json | undefined, name: string): Json | undefined =>
  (resolve(resolve(node).properties) as JsonObject)[name];
const sorted = (values: Json[]): Json[] => [...values].sort();

describe('the model’s extension types mirror spec/x-extensions.yaml', () => {
  const trigger = defs.errorTrigger as JsonObject;
  const kinds = schemaEnum(property(trigger, 'when'));
  const union = typeNamed('ErrorTrigger');
  const member = (kind: Json): Type => {
    const found = union.getUnionTypes().find((t) => literals(propertyType(t, 'when')).includes(kind));
    if (!found) throw new Error(`ErrorTrigger has no member for ${String(kind)}`);
    return found;
  };

  it('the error trigger kinds (`when`) are the ErrorTrigger union’s, both ways', () => {
    expect(sorted(literals(typeNamed('ErrorTriggerKind')))).toEqual(kinds);
    // Each member of the union is one kind: `when` decides the shape.
    for (const t of union.getUnionTypes()) expect(literals(propertyType(t, 'when'))).toHaveLength(1);
  });

  it.each(kinds.map((kind) => [kind]))(
    'the %s trigger has the schema’s properties, required as it requires them',
    (kind) => {
      // The properties of every trigger, with those of each `if` whose `when` names the kind.
      const blocks = (trigger.allOf as JsonObject[])
        .filter((block) => schemaEnum(property(block.if ?? null, 'when')).includes(kind))
        .map((block) => resolve(block.then));
      const all = new Set(Object.keys(resolve(trigger.properties)));
      const required = new Set((trigger.required as string[]) ?? []);
      for (const block of blocks) {
        for (const name of Object.keys(resolve(block.properties ?? {}))) all.add(name);
        for (const name of (block.required as string[] | undefined) ?? []) required.add(name);
      }
      expect(shape(member(kind))).toEqual({ all: [...all].sort(), required: [...required].sort() });
    },
  );

  const cases: [string, () => Json[], () => Type][] = [
    [
      'parameterLocation.in / TriggerParameter.in',
      () => schemaEnum(property({ $ref: '#/$defs/parameterLocation' }, 'in')),
      () => propertyType(typeNamed('TriggerParameter'), 'in'),
    ],
    [
      'otp outcome / OtpTrigger.outcome',
      () => schemaEnum(blockProperty('otp', 'outcome')),
      () => propertyType(member('otp'), 'outcome'),
    ],
    [
      'insufficient_balance equal_amount / InsufficientBalanceTrigger.equal_amount',
      () => schemaEnum(blockProperty('insufficient_balance', 'equal_amount')),
      () => propertyType(member('insufficient_balance'), 'equal_amount'),
    ],
    [
      'keyScope items / KeyScopeDimension',
      () => schemaEnum(resolve({ $ref: '#/$defs/keyScope' }).items),
      () => typeNamed('KeyScopeDimension'),
    ],
    [
      'timestamps set / TimestampSet',
      () => schemaEnum(property(resolve({ $ref: '#/$defs/timestamps' }).additionalProperties, 'set')),
      () => typeNamed('TimestampSet'),
    ],
    [
      'matches order / MatchOrderKind',
      () => schemaEnum(property({ $ref: '#/$defs/matches' }, 'order')),
      () => typeNamed('MatchOrderKind'),
    ],
    ...(['acknowledgement', 'guarantee', 'ordering', 'after_final_failure'] as const).map(
      (name): [string, () => Json[], () => Type] => [
        `delivery ${name} / DeliveryModel.${name}`,
        () => schemaEnum(property({ $ref: '#/$defs/delivery' }, name)),
        () => propertyType(typeNamed('DeliveryModel'), name),
      ],
    ),
    [
      'delivery redelivery.only / DeliveryModel.redelivery.only',
      () => schemaEnum(property(property({ $ref: '#/$defs/delivery' }, 'redelivery'), 'only')),
      () => propertyType(propertyType(typeNamed('DeliveryModel'), 'redelivery'), 'only'),
    ],
  ];

  function blockProperty(kind: string, name: string): Json | undefined {
    const block = (trigger.allOf as JsonObject[]).find(
      (b) =>
        schemaEnum(property(b.if ?? null, 'when')).includes(kind) && name in resolve(resolve(b.then).properties ?? {}),
    );
    return block ? property(block.then, name) : undefined;
  }

  const transition = (): JsonObject =>
    resolve((property({ $ref: '#/$defs/stateMachine' }, 'transitions') as JsonObject).items);
  const transitionTrigger = (): JsonObject => resolve(property(transition(), 'trigger'));
  cases.push(
    [
      'transition trigger boundary / TransitionTrigger (time).boundary',
      () => schemaEnum(property(transitionTrigger(), 'boundary')),
      () => propertyType(timeTrigger(), 'boundary'),
    ],
    [
      'balanceEffect change / BalanceEffectModel.change',
      () => schemaEnum(property({ $ref: '#/$defs/balanceEffect' }, 'change')),
      () => propertyType(typeNamed('BalanceEffectModel'), 'change'),
    ],
  );
  function timeTrigger(): Type {
    const found = typeNamed('TransitionTrigger')
      .getUnionTypes()
      .find((t) => t.getProperty('time'));
    if (!found) throw new Error('TransitionTrigger has no time member');
    return found;
  }

  it.each(cases)('the enum of %s are the same values', (_name, fromSchema, fromTypes) => {
    expect(sorted(literals(fromTypes()))).toEqual(fromSchema());
  });

  it.each([
    ['delivery', 'DeliveryModel'],
    ['testMode', 'TestModeModel'],
  ])('%s has the properties of %s, required as the schema requires them', (def, name) => {
    const node = resolve({ $ref: `#/$defs/${def}` });
    expect(shape(typeNamed(name))).toEqual({
      all: Object.keys(resolve(node.properties)).sort(),
      required: [...((node.required as string[]) ?? [])].sort(),
    });
  });

  it.each([
    ['stateMachine', 'StateMachineModel', () => resolve({ $ref: '#/$defs/stateMachine' })],
    ['stateMachine transitions', 'TransitionModel', transition],
    [
      'stateMachine transition effects',
      'TransitionEffect',
      () => resolve(resolve(property(transition(), 'effects')).items),
    ],
    ['balanceEffect', 'BalanceEffectModel', () => resolve({ $ref: '#/$defs/balanceEffect' })],
  ] as const)('%s has the properties of %s, required as the schema requires them', (_def, name, node) => {
    expect(shape(typeNamed(name))).toEqual({
      all: Object.keys(resolve(node().properties)).sort(),
      required: [...((node().required as string[] | undefined) ?? [])].sort(),
    });
  });

  it('a transition trigger is an operation, an event or a time, each with the schema’s other properties', () => {
    const node = transitionTrigger();
    const kinds = ['operation', 'event', 'time'];
    const members = typeNamed('TransitionTrigger').getUnionTypes();
    // One member per kind, each with its kind's property and the schema's properties that go with it.
    expect(members.map((t) => kinds.filter((kind) => t.getProperty(kind)))).toEqual(kinds.map((kind) => [kind]));
    const all = new Set(members.flatMap((t) => shape(t).all));
    expect([...all].sort()).toEqual(Object.keys(resolve(node.properties)).sort());
  });

  it('a delivery destination is one of the schema’s oneOf shapes, and only those', () => {
    const options = (property({ $ref: '#/$defs/delivery' }, 'destination') as JsonObject).oneOf as JsonObject[];
    const fromSchema = options.map((option) => JSON.stringify(option.required)).sort();
    const fromTypes = typeNamed('DeliveryDestination')
      .getUnionTypes()
      .map((t) => JSON.stringify(shape(t).required))
      .sort();
    expect(fromTypes).toEqual(fromSchema);
  });
});
