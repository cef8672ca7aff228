// The checks a contract's root `x-decisions` list passes, in the service contract and in the sandbox's
// control API alike: well-formed, quoting the interface specification word for word, linked from the
// descriptions where they apply, pointing at places that exist. The control API also links to decisions of
// the service contract through the schemas it shares with it; those count as listed. Descriptions state the
// behaviour and link to the decision (`[decision](#/decisions/<id>)`, a heading of the docs' Decisions
// section); they do not name decisions in the contract's own jargon.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DECISION_LINK } from '@payments-contract/model/decisions';
import { isObject, resolvePointer, type Json, type JsonObject } from './document.js';

export interface DecisionChecks {
  /** Validates a value against a definition of spec/x-extensions.yaml; the problems, or none. */
  conforms: (definition: string, value: Json | undefined) => unknown[];
  /** Ids another contract lists, which this one's descriptions may cite too. */
  listedElsewhere?: ReadonlySet<string>;
}

/** Every decision a description of the document links to, with the pointers of the objects linking to it. */
function decisionCitations(doc: JsonObject): Map<string, string[]> {
  const cited = new Map<string, string[]>();
  const collect = (value: Json | undefined, pointer: string): void => {
    if (Array.isArray(value)) value.forEach((item, index) => collect(item, `${pointer}/${index}`));
    else if (isObject(value)) {
      for (const [key, child] of Object.entries(value)) {
        if (key === 'x-decisions') continue;
        if (key === 'description' && typeof child === 'string') {
          for (const match of child.matchAll(DECISION_LINK)) {
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

export const decisionIds = (doc: JsonObject): Set<string> =>
  new Set(((doc['x-decisions'] ?? []) as JsonObject[]).map((d) => String(d.id)));

export function describeDecisions(doc: JsonObject, checks: DecisionChecks): void {
  describe('decisions', () => {
    const decisions = doc['x-decisions'] as JsonObject[];
    const cited = decisionCitations(doc);

    it("are listed in one place, each with the interface specification's words it resolves", () => {
      expect(checks.conforms('decisions', decisions)).toEqual([]);
      const ids = decisions.map((d) => String(d.id));
      expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
      expect(ids.filter((id) => checks.listedElsewhere?.has(id))).toEqual([]);
    });

    it('quote the interface specification word for word', () => {
      const specification = readFileSync(
        fileURLToPath(new URL('../../../shared/seed/000_5f6ee8de3a733c1d.txt', import.meta.url)),
        'utf8',
      );
      const normalise = (text: string): string => text.replace(/\s+/g, ' ').replaceAll('`', '');
      const normalisedSpecification = normalise(specification);
      const unquoted = decisions.filter(
        (d) =>
          !String(d.quote)
            .split(' … ')
            .every((part) => normalisedSpecification.includes(normalise(part))),
      );
      expect(unquoted.map((d) => d.id)).toEqual([]);
    });

    it('are linked where they apply: every decision from a description, every link to a listed decision', () => {
      const ids = new Set(decisions.map((d) => String(d.id)));
      expect([...cited.keys()].filter((id) => !ids.has(id) && !checks.listedElsewhere?.has(id))).toEqual([]);
      expect([...ids].filter((id) => !cited.has(id))).toEqual([]);
    });

    it('are linked, not named: no description says "Decision `id`", and no text of the document says "seed"', () => {
      const named: string[] = [];
      const visit = (value: Json | undefined, pointer: string): void => {
        if (typeof value === 'string' && /\bDecision\s+`/i.test(value)) named.push(pointer);
        else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${pointer}/${index}`));
        else if (isObject(value)) for (const [key, child] of Object.entries(value)) visit(child, `${pointer}/${key}`);
      };
      visit(doc, '#');
      expect(named).toEqual([]);
      expect(JSON.stringify(doc).match(/.{0,40}\bseed.{0,40}/gi) ?? []).toEqual([]);
    });

    it('point at places that exist in the bundled document', () => {
      const dangling = decisions.flatMap((d) =>
        (d.where as string[])
          .filter((pointer) => resolvePointer(doc, pointer) === undefined)
          .map((p) => `${String(d.id)}: ${p}`),
      );
      expect(dangling).toEqual([]);
    });
  });
}
