// types.ts of the client and server packages (generated/client/src, generated/server/src): `paths`,
// `webhooks`, `components` and `operations`, by openapi-typescript.
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import type { JsonObject } from '../model/types.js';
import { withHeader, type GeneratedFile } from './generated-file.js';

export async function emitTypes(doc: JsonObject): Promise<GeneratedFile> {
  const ast = await openapiTS(doc as unknown as Parameters<typeof openapiTS>[0], {
    // Every documented response is in the union, errors included: handlers and clients narrow on status.
    alphabetize: false,
    // A default is what the service assumes when a field is left out, so the field stays optional in requests.
    defaultNonNullable: false,
    exportType: false,
    rootTypes: false,
    silent: true,
    // A header whose schema is `not: {}` admits no value (Access-Control-Allow-Origin, never sent): `never`,
    // where openapi-typescript writes `unknown` (generator/tests/no-unknown-types.test.ts). It offers its
    // transform a component header as a whole, and a schema only when the schema has a `type`.
    transform: (object) =>
      'schema' in object && admitsNothing(object.schema)
        ? ts.factory.createKeywordTypeNode(ts.SyntaxKind.NeverKeyword)
        : undefined,
  });
  return { path: 'types.ts', contents: withHeader('generator/emit/types.ts', astToString(ast)) };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
/** `{ not: {} }`: the schema no value is valid against. */
const admitsNothing = (schema: unknown): boolean =>
  isObject(schema) && Object.keys(schema).length === 1 && isObject(schema.not) && Object.keys(schema.not).length === 0;
