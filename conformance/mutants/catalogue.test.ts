// The catalogue is a proof only while it is whole and current: every family of checks has its mutants, and
// every mutant's text is still in the sandbox (a mutant that no longer applies would silently prove nothing).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_NAMES } from '../types.js';
import { loadCatalogue } from './catalogue.js';
import { applyEdit } from './runner.js';

const catalogue = await loadCatalogue();
const sandbox = join(import.meta.dirname, '..', '..', 'sandbox');

describe('the catalogue of broken sandboxes', () => {
  it('has at least 30 mutants, at least three for every check', () => {
    expect(catalogue.length).toBeGreaterThanOrEqual(30);
    const perFamily = Object.fromEntries(CHECK_NAMES.map((check) => [check, catalogue.filter((m) => m.family === check).length]));
    expect(Object.entries(perFamily).filter(([, count]) => count < 3)).toEqual([]);
  });

  it.each(catalogue.map((mutant) => [mutant.name, mutant] as const))('%s still applies to the sandbox and changes it', (_name, mutant) => {
    expect(mutant.name).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(mutant.mistake.length).toBeGreaterThan(10);
    expect(mutant.edits.length).toBeGreaterThan(0);
    for (const edit of mutant.edits) {
      const source = readFileSync(join(sandbox, edit.file), 'utf8');
      expect(applyEdit(source, edit, mutant.name)).not.toBe(source);
    }
  });
});
