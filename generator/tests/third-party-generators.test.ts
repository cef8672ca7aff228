// The bundled contract makes code that compiles under strict TypeScript with the generators client teams use
// besides ours: openapi-typescript (types), hey-api (types, SDK and fetch client) and openapi-typescript-codegen
// (models, services, fetch core). A construct one of them cannot type (an `anyOf` whose branches carry no
// `type` made openapi-typescript-codegen write code that does not compile) fails here.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient as heyApi } from '@hey-api/openapi-ts';
import openapiTS, { astToString } from 'openapi-typescript';
import { generate as codegen } from 'openapi-typescript-codegen';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { contractDir } from '../generate.js';

const bundles = { service: join(contractDir, 'openapi.json'), control: join(contractDir, 'sandbox/openapi.json') };
const work = mkdtempSync(join(tmpdir(), 'third-party-generators-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Every .ts file under `dir`. */
const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => join(entry.parentPath, entry.name));

/** The strict compiler's complaints about `files`, one line each. */
function strictErrors(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map(
      (diagnostic) =>
        `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ')}`,
    );
}

const generators: [string, (input: string, output: string) => Promise<void>][] = [
  [
    'openapi-typescript',
    async (input, output) => {
      const ast = await openapiTS(new URL(`file://${input}`), { silent: true });
      writeFileSync(join(output, 'types.ts'), astToString(ast));
    },
  ],
  [
    'hey-api 0.95 (types, SDK, fetch client)',
    async (input, output) => {
      await heyApi({
        input,
        output,
        plugins: ['@hey-api/typescript', '@hey-api/sdk', '@hey-api/client-fetch'],
        logs: { level: 'silent' },
      });
    },
  ],
  [
    'openapi-typescript-codegen (fetch)',
    async (input, output) => {
      await codegen({ input, output, httpClient: 'fetch', useOptions: true, write: true });
    },
  ],
];

describe.each(Object.entries(bundles))('the bundled %s contract', (name, input) => {
  it.each(generators)(
    'compiles strict as %s writes it',
    async (generator, run) => {
      const output = mkdtempSync(join(work, `${name}-`));
      await run(input, output);
      const files = tsFiles(output);
      expect(files.length, `${generator} wrote no TypeScript`).toBeGreaterThan(0);
      expect(strictErrors(files)).toEqual([]);
    },
    120_000,
  );
});
