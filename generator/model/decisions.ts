// How a contract's descriptions cite its decisions (`x-decisions`): `[text](#/decisions/<id>)`, the route
// of the decision's heading in the docs' Decisions section. The docs page builds that section from it, and
// the spec's tests check every citation against the decisions listed.

/** The docs section's tag: Redoc routes it as `#/decisions`, and each decision heading as `#/decisions/<id>`. */
export const DECISIONS_TAG = 'Decisions';

/** A link to a decision's heading on the page, as descriptions write it: `[text](#/decisions/<id>)`. */
export const DECISION_LINK = /\]\(#\/decisions\/([a-z0-9-]+)\)/g;

/** Every decision id the document's descriptions link to, in order of first appearance. */
export function linkedDecisionIds(doc: Record<string, unknown>): string[] {
  const ids = new Set<string>();
  const visit = (value: unknown, key: string): void => {
    if (key === 'x-decisions') return;
    if (typeof value === 'string') {
      if (key === 'description') for (const match of value.matchAll(DECISION_LINK)) ids.add(match[1] as string);
    } else if (Array.isArray(value)) value.forEach((item) => visit(item, ''));
    else if (value !== null && typeof value === 'object')
      for (const [name, child] of Object.entries(value)) visit(child, name);
  };
  visit(doc, '');
  return [...ids];
}
