// The backends are interchangeable folders: each listed backend is a folder of its own under store/ with the
// same file names (backend.ts describes it, store.ts opens it, store.test.ts holds it to the shared contract
// suite under its own name), and every folder with a backend.ts is in the list.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { OptionReader } from './backend.js';
import { STORE_BACKENDS } from './backends.js';
import { backendOf, FILE_OF, STORE_CHOICES, STORE_KINDS, storeStartupError } from './open-store.js';
import { DataDirInUseError, OtherStoreKindError } from './store.js';

const here = fileURLToPath(new URL('.', import.meta.url));
const SAME_FILES = ['backend.ts', 'store.ts', 'store.test.ts'];

describe('the store backends', () => {
  it('are each a folder with the same file names, whose test runs the shared contract suite under its name', () => {
    for (const { name } of STORE_BACKENDS) {
      for (const file of SAME_FILES) expect(existsSync(`${here}${name}/${file}`), `${name}/${file}`).toBe(true);
      expect(readFileSync(`${here}${name}/store.test.ts`, 'utf8')).toContain(`describeStoreContract('${name}',`);
    }
  });

  it('are all in the one list, which STORE reads', () => {
    const folders = readdirSync(here, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(`${here}${entry.name}/backend.ts`))
      .map((entry) => entry.name);
    expect([...STORE_CHOICES].sort()).toEqual(folders.sort());
    for (const name of STORE_CHOICES) expect(backendOf(name).name).toBe(name);
  });

  it('read each option they offer themselves, and only those', () => {
    for (const backend of STORE_BACKENDS) {
      const read: string[] = [];
      const reader: OptionReader = {
        get: (name, _parse, fallback) => (read.push(name), fallback),
        integer: () => 0,
        refuse: (message) => {
          throw new Error(message);
        },
      };
      if ('settings' in backend) backend.settings(reader);
      expect(read.sort(), backend.name).toEqual(Object.keys(backend.options).sort());
    }
  });

  it('keep each embedded kind a file of its own, and say every start-up failure of theirs in a line', () => {
    expect(new Set(STORE_KINDS.map((kind) => FILE_OF[kind])).size).toBe(STORE_KINDS.length);
    expect(storeStartupError(new DataDirInUseError('/data/x.lock'))).toContain('DATA_DIR');
    expect(storeStartupError(new OtherStoreKindError('/data', 'sqlite', 'sandbox.sqlite3'))).toContain('STORE=sqlite');
    expect(storeStartupError(new Error('something else'))).toBeUndefined();
  });
});
