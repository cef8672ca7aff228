// The READMEs' code is the code the tests compile: each block tagged `<!-- from FILE -->` (or
// `FILE#region` for a `// --- README (region) ---` part of a test) equals that file's code, imports of the
// packages included. The root README shows a newcomer the client and a callback receiver; the generator's
// guide shows the server and a callback sender.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The tagged blocks of a README (path from the repository's root), in their order. */
function taggedBlocks(readmePath: string) {
  const readme = readFileSync(`${repoRoot}${readmePath}`, 'utf8');
  return [...readme.matchAll(/<!-- from ([^#\s]+)(?:#(\S+))? -->\n```ts\n([\s\S]*?)\n```/g)].map((match) => ({
    readme: readmePath,
    file: match[1] as string,
    region: match[2],
    block: match[3] as string,
  }));
}

const shown = {
  'README.md': ['generator/tests/readme-client-example.ts', 'generator/tests/webhook-types.test.ts#merchant'],
  'generator/README.md': ['generator/tests/readme-server-example.ts', 'generator/tests/webhook-types.test.ts#sandbox'],
};
const tagged = Object.keys(shown).flatMap(taggedBlocks);
const nameOf = (t: { file: string; region: string | undefined }) => `${t.file}${t.region ? `#${t.region}` : ''}`;

function dedent(text: string): string {
  const lines = text.split('\n');
  const indent = Math.min(
    ...lines.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length),
  );
  return lines.map((line) => line.slice(indent)).join('\n');
}

function sourceCode(file: string, region: string | undefined): string {
  const text = readFileSync(`${repoRoot}${file}`, 'utf8');
  if (region) {
    const match = new RegExp(`// --- README \\(${region}\\) ---\\n([\\s\\S]*?)\\n\\s*// --- end ---`).exec(text);
    if (!match) throw new Error(`${file} has no README region ${region}`);
    return dedent(match[1] as string);
  }
  const lines = text.split('\n');
  return lines
    .slice(lines.findIndex((line) => line.startsWith('import')))
    .join('\n')
    .trimEnd();
}

describe('README examples', () => {
  it.each(Object.entries(shown))('%s shows its examples, in this order', (readme, examples) => {
    expect(tagged.filter((t) => t.readme === readme).map(nameOf)).toEqual(examples);
  });

  it.each(tagged.map((t) => [`${t.readme}: ${nameOf(t)}`, t] as const))(
    '%s is shown exactly as compiled',
    (_name, { file, region, block }) => {
      expect(block).toBe(sourceCode(file, region));
    },
  );
});
