// The guides as a reader meets them: the root README stays short enough to read in five minutes, and no link
// in any Markdown file of the repository leads nowhere (a moved file or a renamed heading breaks a test, not
// a reader's trust). Links are checked as GitHub renders them: relative to the file, a heading's anchor being
// its GitHub slug.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const ROOT_README_MAX_LINES = 200;

/** Folders that hold no guide of ours: installed, built, or the run's own leftovers. */
const SKIPPED_FOLDERS = new Set(['node_modules', 'dist', '.git', 'test-artifacts', '.sandbox-data']);

function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return SKIPPED_FOLDERS.has(entry.name) ? [] : markdownFiles(path);
    return entry.name.endsWith('.md') ? [path] : [];
  });
}

/** The Markdown without its code blocks and HTML comments, which hold no links or headings. */
function withoutBlocks(markdown: string): string {
  return markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/<!--[\s\S]*?-->/g, '');
}

/** The text a reader sees as prose: code spans hold no links either. */
function prose(markdown: string): string {
  return withoutBlocks(markdown).replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const [, heading = ''] of withoutBlocks(markdown)
    .replace(/`([^`\n]*)`/g, '$1')
    .matchAll(/^#{1,6}\s+(.*)$/gm)) {
    const text = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').trim();
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    found.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return found;
}

/** Each relative link of a Markdown file that does not lead to an existing file (and heading), with why. */
function brokenLinks(file: string): string[] {
  const markdown = readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const [, target = ''] of prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#/')) continue; // a URL, or a docs route
    const [path = '', anchor] = target.split('#');
    const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path));
    if (!existsSync(resolved)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor && resolved.endsWith('.md') && statSync(resolved).isFile()) {
      if (!anchors(readFileSync(resolved, 'utf8')).has(anchor)) broken.push(`${target}: no such heading`);
    }
  }
  return broken;
}

describe('the guides', () => {
  it(`the root README is at most ${ROOT_README_MAX_LINES} lines`, () => {
    const lines = readFileSync(join(repoRoot, 'README.md'), 'utf8').trimEnd().split('\n').length;
    expect(lines).toBeLessThanOrEqual(ROOT_README_MAX_LINES);
  });

  const files = markdownFiles(repoRoot).map((file) => relative(repoRoot, file));

  it('include every README.md and CONVENTIONS.md', () => {
    expect(files).toContain('README.md');
    expect(files).toContain('spec/CONVENTIONS.md');
    expect(files).toContain('conformance/README.md');
    expect(files).toContain('sandbox/README.md');
  });

  it.each(files)('%s: every relative link leads to a file, and its anchor to a heading there', (file) => {
    expect(brokenLinks(join(repoRoot, file))).toEqual([]);
  });
});

describe('the link check', () => {
  it('finds a link to a missing file or heading, and passes code, comments, URLs and docs routes', () => {
    const folder = mkdtempSync(join(tmpdir(), 'readme-links-'));
    try {
      writeFileSync(join(folder, 'GUIDE.md'), '# Guide\n## `npm run x`: y\n```sh\n# not a heading\n```\n## Guide\n');
      const links = [
        '[ok](GUIDE.md#npm-run-x-y) [ok](GUIDE.md#guide-1) [ok](#top) [ok](https://example.com/a.md) [ok](#/decisions/x)',
        '`[code](gone.md)` <!-- [comment](gone.md) -->',
        '```md\n[block](gone.md)\n```',
        '# Top',
        '[file](gone.md) [heading](GUIDE.md#not-a-heading) [fenced](GUIDE.md#not-a-heading-1)',
      ];
      writeFileSync(join(folder, 'README.md'), links.join('\n'));
      expect(brokenLinks(join(folder, 'README.md'))).toEqual([
        'gone.md: no such file',
        'GUIDE.md#not-a-heading: no such heading',
        'GUIDE.md#not-a-heading-1: no such heading',
      ]);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
