// types.ts of the client and server packages (generated/client/src, generated/server/src): `paths`,
// `webhooks`, `components` and `operations`, by openapi-typescript.
import openapiTS, { astToString } from 'openapi-typescript';
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
  });
  return { path: 'types.ts', contents: withHeader('generator/emit/types.ts', astToString(ast)) };
}
