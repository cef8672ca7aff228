// The README's code is the code the tests compile: each block tagged `<!-- from FILE -->` (or
// `FILE#region` for a `// --- README (region) ---` part of a test) equals that file's code, imports of the
// packages included.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(`${repoRoot}README.md`, 'utf8');
const tagged = [...readme.matchAll(/<!-- from ([^#\s]+)(?:#(\S+))? -->\n```ts\n([\s\S]*?)\n```/g)].map((match) => ({
  file: match[1] as string,
  region: match[2],
  block: match[3] as string,
}));

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
  it('include the client, server and webhook examples', () => {
    expect(tagged.map((t) => `${t.file}${t.region ? `#${t.region}` : ''}`)).toEqual([
      'generator/tests/readme-client-example.ts',
      'generator/tests/readme-server-example.ts',
      'generator/tests/webhook-types.test.ts#merchant',
      'generator/tests/webhook-types.test.ts#sandbox',
    ]);
  });

  it.each(tagged.map((t) => [`${t.file}${t.region ? `#${t.region}` : ''}`, t] as const))(
    '%s is shown exactly as compiled',
    (_name, { file, region, block }) => {
      expect(block).toBe(sourceCode(file, region));
    },
  );
});
