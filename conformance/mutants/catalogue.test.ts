// The catalogue is a proof only while it is whole and current: every family of checks has its mutants, and
// every mutant's text is still in the sandbox, inside the declaration it names (a mutant that no longer
// applies would silently prove nothing; one anchored to nothing would go stale at the first refactoring).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../types.js';
import { loadCatalogue } from './catalogue.js';
import { checksFor } from './runner.js';
import { editedFiles } from './source-edit.js';
import { MUTANT_CLASSES } from './types.js';

const catalogue = await loadCatalogue();
const sandbox = join(import.meta.dirname, '..', '..', 'sandbox');
const read = (file: string): string => readFileSync(join(sandbox, file), 'utf8');

describe('the catalogue of broken sandboxes', () => {
  it('has at least 30 mutants, at least three for every check', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(30);
    const perFamily = Object.fromEntries(
      CHECK_NAMES.map((check) => [check, catalogue.filter((m) => m.family === check).length]),
    );
    expect(Object.entries(perFamily).filter(([, count]) => count < 3)).toEqual([]);
  });

  it('anchors every edit to the declaration its text is in', () => {
    const unanchored = catalogue.flatMap((mutant) =>
      mutant.edits.filter((edit) => !edit.within).map((edit) => `${mutant.name}: ${edit.file}`),
    );
    expect(unanchored).toEqual([]);
  });

  it('names only the classes of fault the kill-rate report knows', () => {
    expect(
      catalogue
        .filter((m) => m.class !== undefined && !MUTANT_CLASSES.includes(m.class))
        .map((m) => `${m.name}: ${m.class}`),
    ).toEqual([]);
  });

  it("judges a mutant that names its own checks by its family's check among them", () => {
    expect(
      catalogue.filter((m) => m.judgedBy && !m.judgedBy.includes(m.family)).map((m) => `${m.name}: ${m.judgedBy}`),
    ).toEqual([]);
  });

  it('names where a mutant must be caught only on a result of the checks it is judged by', () => {
    const elsewhere = catalogue
      .filter(
        (mutant) =>
          mutant.caught && !(checksFor(mutant) as string[]).includes(mutant.caught.result.split(':')[0] ?? ''),
      )
      .map((mutant) => `${mutant.name}: ${mutant.caught?.result}`);
    expect(elsewhere).toEqual([]);
  });

  it.each(catalogue.map((mutant) => [mutant.name, mutant] as const))(
    '%s still applies to the sandbox and changes it',
    (_name, mutant) => {
      expect(mutant.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
      expect(mutant.mistake.length).toBeGreaterThan(10);
      expect(mutant.edits.length).toBeGreaterThan(0);
      const edited = editedFiles(mutant, read);
      for (const [file, text] of edited) expect(text, file).not.toBe(read(file));
    },
  );
});
