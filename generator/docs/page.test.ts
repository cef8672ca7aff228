import { describe, expect, it } from 'vitest';
import {
  callbackWording,
  LIBRARY_URL,
  offlinePage,
  plainText,
  withDecisionsSection,
  withLibraryApart,
  withPlainServers,
  type Decision,
} from './page.js';

const decision = (id: string): Decision => ({
  id,
  topic: `Topic of ${id}`,
  quote: `Words for ${id}.`,
  decision: `What was decided for ${id}.`,
  where: ['#/info'],
});

describe('withDecisionsSection', () => {
  const doc = {
    info: { description: 'Lists are whole ([decision](#/decisions/no-pagination)).' },
    tags: [{ name: 'Things' }],
    paths: { '/a': { get: { description: 'Shared rule ([decision](#/decisions/elsewhere-rule)).' } } },
    'x-decisions': [decision('no-pagination')],
  };

  it('adds a trait tag with the own decisions and those linked from elsewhere, one heading per id', () => {
    const shown = withDecisionsSection(doc, [decision('elsewhere-rule'), decision('not-linked')]);
    const tags = shown.tags as { name: string; 'x-traitTag'?: boolean; description?: string }[];
    expect(tags.map((tag) => tag.name)).toEqual(['Things', 'Decisions']);
    expect(tags[1]?.['x-traitTag']).toBe(true);
    const headings = tags[1]?.description?.match(/^### .*$/gm);
    expect(headings).toEqual(['### no-pagination', '### elsewhere-rule']);
    expect(tags[1]?.description).toContain('> Words for no-pagination.');
    expect(doc.tags).toHaveLength(1);
  });

  it('refuses a link to a decision no contract lists', () => {
    expect(() => withDecisionsSection(doc)).toThrow(/elsewhere-rule/);
  });
});

describe('offlinePage and callbackWording', () => {
  const redoc =
    'src:e?`https://cdn.redoc.ly/redoc/logo-mini-full.svg`:`https://cdn.redoc.ly/redoc/logo-mini.svg`;V_=`Webhooks`,g(`badges.webhook`,`Webhook`)';

  it('puts the badge images in the page and calls callbacks callbacks', () => {
    const page = callbackWording(offlinePage(redoc));
    expect(page).not.toMatch(/https:|Webhook/);
    expect(page).toContain('data:image/svg+xml,');
    expect(page).toContain('V_=`Callbacks`');
  });

  it('fails when Redoc no longer holds what it replaces, or loads more from the CDN', () => {
    expect(() => offlinePage('nothing')).toThrow(/no longer references/);
    expect(() => offlinePage(`${redoc} \`https://cdn.redoc.ly/other.svg\``)).toThrow(/other\.svg/);
    expect(() => callbackWording('nothing')).toThrow(/0 copies/);
  });
});

describe('withPlainServers', () => {
  it("gives Redoc the servers' descriptions as the plain text they read as (it does not render their Markdown)", () => {
    const doc = {
      servers: [
        {
          url: 'https://{host}',
          description:
            'The **production** service.\nThe `host` variable; locally `npm start` ([decision](#/decisions/base-url)), [guide](https://example.com/g).',
          variables: { host: { default: 'a.example', description: 'The `host`.' } },
        },
      ],
    };
    expect(withPlainServers(doc).servers).toEqual([
      {
        url: 'https://{host}',
        description:
          'The production service. The host variable; locally npm start (decision base-url), guide (https://example.com/g).',
        variables: { host: { default: 'a.example', description: 'The host.' } },
      },
    ]);
    expect(plainText('no marks')).toBe('no marks');
  });
});

describe('withLibraryApart', () => {
  const built =
    '<body><div id="redoc">ssr</div><script type="module">\n /** @license */\nconst{RedocStandalone,hydrate,init}=(()=>{return{}})();export{RedocStandalone,hydrate,init};\n\n const __redoc_definition = {"a":1};\n hydrate(__redoc_definition);\n</script></body>';

  it("takes Redoc's library out of the page, which imports hydrate from the one file beside it", () => {
    const { page, library } = withLibraryApart(built);
    expect(library).toBe(
      '/** @license */\nconst{RedocStandalone,hydrate,init}=(()=>{return{}})();export{RedocStandalone,hydrate,init};\n',
    );
    expect(page).toBe(
      `<body><div id="redoc">ssr</div><script type="module">\nimport { hydrate } from '${LIBRARY_URL}';\nconst __redoc_definition = {"a":1};\n hydrate(__redoc_definition);\n</script></body>`,
    );
  });

  it('fails when Redoc builds the page otherwise', () => {
    expect(() => withLibraryApart('<script>nothing</script>')).toThrow(/one module script/);
    expect(() => withLibraryApart(built.replace('export{', 'exports{'))).toThrow(/no longer ends/);
  });
});
