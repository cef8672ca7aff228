// The checks a contract's root `x-decisions` list passes, in the service contract and in the sandbox's
// control API alike: well-formed, quoting the seed word for word, cited where they apply, pointing at
// places that exist. The control API also cites decisions of the service contract through the schemas it
// shares with it; those count as listed.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isObject, resolvePointer, type Json, type JsonObject } from './document.js';

export interface DecisionChecks {
  /** Validates a value against a definition of spec/x-extensions.yaml; the problems, or none. */
  conforms: (definition: string, value: Json | undefined) => unknown[];
  /** Ids another contract lists, which this one's descriptions may cite too. */
  listedElsewhere?: ReadonlySet<string>;
}

/** Every `Decision \`id\`` a description of the document cites, with the pointers of the objects citing it. */
function decisionCitations(doc: JsonObject): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  const collect = (value: Json | undefined, pointer: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => collect(item, `${pointer}/${index}`));
    else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'x-decisions') continue;
        if (key === 'description' && typeof child === 'string') {
          for (const match of child.matchAll(/Decision\s+`([a-z0-9-]+)`/g)) {
            const id = match[1] as string;
            cited.set(id, [...(cited.get(id) ?? []), pointer]);
          }
        } else collect(child, `${pointer}/${key}`);
      }
    }
  };
  collect(doc, '#');
  return cited;
}

export const decisionIds = (doc: JsonObject): Set<string> => new Set(((doc['x-decisions'] ?? []) as JsonObject[]).map((d) => String(d.id)));

export function describeDecisions(doc: JsonObject, checks: DecisionChecks): void {
  describe('decisions', () => {
    const decisions = doc['x-decisions'] as JsonObject[];
    const cited = decisionCitations(doc);

    it('are listed in one place, each with the seed words it resolves', () => {
      expect(checks.conforms('decisions', decisions)).toEqual([]);
      const ids = decisions.map((d) => String(d.id));
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
      expect(ids.filter((id) => checks.listedElsewhere?.has(id))).toEqual([]);
    });

    it('quote the seed word for word', () => {
      const seed = readFileSync(fileURLToPath(new URL('../../../shared/seed/000_5f6ee8de3a733c1d.txt', import.meta.url)), 'utf8');
      const normalise = (text: string): string => text.replace(/\s+/g, ' ').replaceAll('`', '');
      const normalisedSeed = normalise(seed);
      const unquoted = decisions.filter((d) => !String(d.seed).split(' … ').every((part) => normalisedSeed.includes(normalise(part))));
      expect(unquoted.map((d) => d.id)).toEqual([]);
    });

    it('are written where they apply: every decision is cited in a description, every citation is listed', () => {
      const ids = new Set(decisions.map((d) => String(d.id)));
      expect([...cited.keys()].filter((id) => !ids.has(id) && !checks.listedElsewhere?.has(id))).toEqual([]);
      expect([...ids].filter((id) => !cited.has(id))).toEqual([]);
    });

    it('point at places that exist in the bundled document', () => {
      const dangling = decisions.flatMap((d) => (d.where as string[]).filter((pointer) => resolvePointer(doc, pointer) === undefined).map((p) => `${String(d.id)}: ${p}`));
      expect(dangling).toEqual([]);
    });
  });
}
