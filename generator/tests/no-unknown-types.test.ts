// No `unknown` where the contract means a type: every value the generated types describe, through every
// schema, operation and webhook, resolves to a type, except the values of a free-form map (`metadata`, the
// index signature openapi-typescript gives undeclared headers), which the contract leaves open on purpose.
// `string | unknown` is `unknown` to the compiler, so the walk reads the types as the checker resolves them,
// not their text: a schema whose branches carry no `type` (an `anyOf` of bare `format` and `maxLength`)
// is caught here, and an `allOf` branch that only constrains (`X & unknown`, which is X) is not.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const typesFiles = {
  service: fileURLToPath(new URL('../../generated/client/src/types.ts', import.meta.url)),
  control: fileURLToPath(new URL('../../generated/client/src/sandbox/types.ts', import.meta.url)),
};

/** The paths (`components.schemas.DirectDebitPayment.otp_expiration_timestamp`) of values typed `unknown`. */
export function unknownValues(file: string, roots: readonly string[]): string[] {
  const program = ts.createProgram([file], { strict: true, noEmit: true, skipLibCheck: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  if (!source) throw new Error(`cannot read ${file}`);
  const found: string[] = [];
  const seen = new Set<ts.Type>();

  const walk = (type: ts.Type, path: string): void => {
    if (type.flags & ts.TypeFlags.Unknown || type.flags & ts.TypeFlags.Any) {
      found.push(path);
      return;
    }
    if (seen.has(type)) return;
    seen.add(type);
    if (type.isUnionOrIntersection()) {
      for (const member of type.types) walk(member, path);
      return;
    }
    if (checker.isArrayType(type) || checker.isTupleType(type)) {
      for (const element of checker.getTypeArguments(type as ts.TypeReference)) walk(element, `${path}[]`);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    // Index signatures are the free-form maps; only declared properties are walked.
    for (const property of type.getProperties()) {
      const declaration = property.valueDeclaration ?? property.declarations?.[0];
      if (!declaration) continue;
      walk(checker.getTypeOfSymbolAtLocation(property, declaration), `${path}.${property.getName()}`);
    }
  };

  for (const root of roots) {
    const declaration = source.statements.find(
      (statement): statement is ts.InterfaceDeclaration =>
        ts.isInterfaceDeclaration(statement) && statement.name.text === root,
    );
    if (!declaration) throw new Error(`${file} declares no ${root}`);
    walk(checker.getTypeAtLocation(declaration.name), root);
  }
  return found;
}

describe('the generated types', () => {
  it.each([
    ['service', typesFiles.service, ['components', 'operations', 'webhooks']],
    ['control API', typesFiles.control, ['components', 'operations']],
  ] as const)(
    'of the %s contract type every value the contract types',
    (_name, file, roots) => {
      expect(unknownValues(file, roots)).toEqual([]);
    },
    60_000,
  );

  it('catch a value typed by branches without a type, as the walk is meant to', () => {
    const file = fileURLToPath(new URL('./fixtures/untyped-any-of.ts', import.meta.url));
    expect(unknownValues(file, ['components'])).toEqual(['components.schemas.Payment.otp_expiration_timestamp']);
  }, 60_000);
});
