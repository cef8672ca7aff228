// The catalogue of mutants: every file in catalogue/ holds one family's (`export const mutants`). Read from
// the folder so that a family is added by adding its file, and no list elsewhere can forget one.
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Mutant } from './types.js';

const folder = join(dirname(fileURLToPath(import.meta.url)), 'catalogue');

export async function loadCatalogue(): Promise<Mutant[]> {
  const files = readdirSync(folder)
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort();
  const families = await Promise.all(
    files.map(async (file) => ({
      file,
      module: (await import(pathToFileURL(join(folder, file)).href)) as { mutants?: unknown },
    })),
  );
  const mutants = families.flatMap(({ file, module }) => {
    if (!Array.isArray(module.mutants))
      throw new Error(`conformance/mutants/catalogue/${file} exports no mutants array`);
    return module.mutants as Mutant[];
  });
  const names = new Set<string>();
  for (const mutant of mutants) {
    if (names.has(mutant.name)) throw new Error(`two mutants are named ${mutant.name}`);
    names.add(mutant.name);
  }
  return mutants;
}
