// What the Redoc pages show besides the contract as it is, and what makes them work offline. The contract
// keeps its decisions as data (`x-decisions`); the page shows them as a section of their own, one heading per
// decision id, which is where the descriptions' `#/decisions/<id>` links land. Redoc's sidebar badge loads a
// logo from Redocly's CDN and the browser asks for /favicon.ico; both are answered in the page itself. Redoc
// labels callbacks "Webhooks"; the page calls them callbacks, as the contract does.
import { fileURLToPath } from 'node:url';
import { DECISIONS_TAG, linkedDecisionIds } from '@payments-contract/model/decisions';

/** One entry of a contract's `x-decisions` (spec/x-extensions.yaml, `decisions`). */
export interface Decision {
  id: string;
  topic: string;
  /** The interface specification's words the decision resolves. */
  quote: string;
  decision: string;
  where: string[];
}

type Document = Record<string, unknown>;

/** The handlebars template of the pages: Redoc's own, plus an icon so the browser does not ask the server for one. */
export const PAGE_TEMPLATE = fileURLToPath(new URL('./template.hbs', import.meta.url));

export const decisionsOf = (doc: Document): Decision[] =>
  Array.isArray(doc['x-decisions']) ? (doc['x-decisions'] as Decision[]) : [];

/** A quote as a Markdown block quote, every line of it. */
const blockQuote = (text: string): string =>
  text
    .trim()
    .split('\n')
    .map((line) => `> ${line}`.trimEnd())
    .join('\n');

function decisionSection(decision: Decision): string {
  // The heading is the id: Redoc makes a heading's route from its text, and an id's text is its own route.
  return [
    `### ${decision.id}`,
    `**${decision.topic.trim()}**`,
    `The interface specification:`,
    blockQuote(decision.quote),
    `Decided: ${decision.decision.trim()}`,
  ].join('\n\n');
}

const INTRODUCTION = [
  'Where the interface specification this API implements is silent or contradicts itself, this contract decided how the service behaves.',
  'Each decision quotes the specification and states what was decided; descriptions elsewhere on this page link to the decision behind them.',
  'The same list is in the contract as data, under `x-decisions`.',
].join(' ');

/**
 * The document as the page shows it: its own decisions, and those of `elsewhere` (another contract's list)
 * that its descriptions link to, under a tag of their own. A link to a decision listed nowhere is an error:
 * the page would have nowhere to take the reader.
 */
export function withDecisionsSection(doc: Document, elsewhere: readonly Decision[] = []): Document {
  const own = decisionsOf(doc);
  const known = new Map([...elsewhere, ...own].map((decision) => [decision.id, decision]));
  const linked = linkedDecisionIds(doc);
  const unknown = linked.filter((id) => !known.has(id));
  if (unknown.length > 0) throw new Error(`descriptions link to decisions no contract lists: ${unknown.join(', ')}`);
  const ownIds = new Set(own.map((decision) => decision.id));
  const shown = [...own, ...linked.filter((id) => !ownIds.has(id)).map((id) => known.get(id) as Decision)];
  if (shown.length === 0) return doc;
  const tags = Array.isArray(doc.tags) ? (doc.tags as unknown[]) : [];
  const section = {
    name: DECISIONS_TAG,
    'x-traitTag': true,
    description: [INTRODUCTION, ...shown.map(decisionSection)].join('\n\n'),
  };
  return { ...doc, tags: [...tags, section] };
}

/**
 * Redoc's own labels for callbacks: the list heading of a tag's callbacks and each callback's badge. The
 * contract calls them callbacks everywhere (the tag, the introduction), so the page does too. Each label
 * must be found exactly once: a Redoc release that renames them fails the build here.
 */
const CALLBACK_LABELS: [string, string][] = [
  ['=`Webhooks`,', '=`Callbacks`,'],
  ['`badges.webhook`,`Webhook`)', '`badges.webhook`,`Callback`)'],
];

export function callbackWording(html: string): string {
  let page = html;
  for (const [label, wording] of CALLBACK_LABELS) {
    const found = page.split(label).length - 1;
    if (found !== 1)
      throw new Error(
        `the Redoc page holds ${found} copies of ${label}, expected 1: check how it labels callbacks now`,
      );
    page = page.replace(label, wording);
  }
  return page;
}

/** Redoc's sidebar badge images, loaded from Redocly's CDN by the page's script. */
const CDN_LOGOS: Record<string, string> = {
  'https://cdn.redoc.ly/redoc/logo-mini-full.svg': 'Redocly',
  'https://cdn.redoc.ly/redoc/logo-mini.svg': 'R',
};

/** A small SVG word mark as a data URL (no request), keeping the badge's credit to Redocly. */
function wordMark(text: string): string {
  const width = 10 + text.length * 9;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" viewBox="0 0 ${width} 20"><text x="2" y="15" font-family="sans-serif" font-size="14" font-weight="600" fill="#5c6b7a">${text}</text></svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}

/**
 * The built page with the badge's CDN images replaced by inline ones. A Redoc release that no longer loads
 * them (or loads them from elsewhere) fails the build here rather than putting a request back in the page.
 */
export function offlinePage(html: string): string {
  let page = html;
  for (const [url, text] of Object.entries(CDN_LOGOS)) {
    if (!page.includes(url))
      throw new Error(`the Redoc page no longer references ${url}: check what its badge loads now`);
    page = page.replaceAll(url, wordMark(text));
  }
  const outside = page.match(/https:\/\/cdn\.redoc\.ly\/[^`"')\s]*/g);
  if (outside) throw new Error(`the Redoc page still loads from Redocly's CDN: ${[...new Set(outside)].join(', ')}`);
  return page;
}

/**
 * Inline Markdown as the plain text it reads as: a link's text (a decision link names its decision, since the
 * text alone says only "decision"), code without its backticks, emphasis without its marks.
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/\[([^\]]*)\]\(#\/decisions\/([^)\s]+)\)/g, '$1 $2')
    .replace(/\[([^\]]*)\]\(([^)\s]+)\)/g, (_, text: string, target: string) =>
      target.startsWith('#') ? text : `${text} (${target})`,
    )
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/**
 * The servers as Redoc shows them: it prints a server's and a server variable's description as they are,
 * not as Markdown, so the page gets them as plain text (the contract keeps its links for other readers).
 */
export function withPlainServers(doc: Document): Document {
  if (!Array.isArray(doc.servers)) return doc;
  const plain = (value: unknown): unknown => (typeof value === 'string' ? plainText(value) : value);
  const servers = (doc.servers as Record<string, unknown>[]).map((server) => {
    const variables = server.variables as Record<string, Record<string, unknown>> | undefined;
    return {
      ...server,
      ...(server.description === undefined ? {} : { description: plain(server.description) }),
      ...(variables === undefined
        ? {}
        : {
            variables: Object.fromEntries(
              Object.entries(variables).map(([name, variable]) => [
                name,
                variable.description === undefined
                  ? variable
                  : { ...variable, description: plain(variable.description) },
              ]),
            ),
          }),
    };
  });
  return { ...doc, servers };
}

/** Where a page loads Redoc's library from: beside the pages (the package's docs/, the sandbox's /docs/). */
export const LIBRARY_FILE = 'redoc.js';
export const LIBRARY_URL = `/docs/${LIBRARY_FILE}`;

const MODULE_START = '<script type="module">';
const DEFINITION_START = 'const __redoc_definition';
const LIBRARY_EXPORT = 'export{RedocStandalone,hydrate,init};';

/**
 * The built page without Redoc's library, and the library: 2.3 of the page's 3 MB, the same for every page,
 * loaded from `LIBRARY_URL` (one file, cached, for both pages) instead of written into each. Redoc inlines it
 * as an ES module that exports `hydrate`; the page's own script imports it from there. A Redoc release that
 * builds the page otherwise fails the build here.
 */
export function withLibraryApart(html: string): { page: string; library: string } {
  const start = html.indexOf(MODULE_START);
  const definition = html.indexOf(DEFINITION_START, start);
  if (start < 0 || definition < 0 || html.indexOf(MODULE_START, start + 1) >= 0)
    throw new Error('the Redoc page no longer has one module script with its definition: check how it loads Redoc');
  const library = html.slice(start + MODULE_START.length, definition).trim();
  if (!library.endsWith(LIBRARY_EXPORT))
    throw new Error(`Redoc's library no longer ends with ${LIBRARY_EXPORT}: check what the page imports from it`);
  const page = `${html.slice(0, start)}${MODULE_START}\nimport { hydrate } from '${LIBRARY_URL}';\n${html.slice(definition)}`;
  return { page, library: `${library}\n` };
}
