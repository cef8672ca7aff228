// Opens the embedded store of the kind asked for. Each kind keeps its own file in DATA_DIR; a directory
// that holds only the other kind's file is refused with the option that would open it, rather than started
// empty beside data the user expects to see.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { JOURNAL_FILE } from './journal-file.js';
import { openJournalStore } from './journal-store.js';
import { openSqliteStore, SQLITE_FILE } from './sqlite-store.js';
import type { CollectionDefinition, Store } from './store.js';

export const STORE_KINDS = ['journal', 'sqlite'] as const;
export type StoreKind = (typeof STORE_KINDS)[number];

export const isStoreKind = (name: string): name is StoreKind => (STORE_KINDS as readonly string[]).includes(name);

/** What STORE may name: an embedded kind (data in DATA_DIR, one process) or PostgreSQL (DATABASE_URL, several processes). */
export const STORE_CHOICES = [...STORE_KINDS, 'postgres'] as const;
export type StoreChoice = (typeof STORE_CHOICES)[number];

/** The file each kind keeps in DATA_DIR. */
export const FILE_OF: Record<StoreKind, string> = { journal: JOURNAL_FILE, sqlite: SQLITE_FILE };

/** DATA_DIR holds another kind of store than the one asked for, and none of the asked kind. */
export class OtherStoreKindError extends Error {
  constructor(
    readonly dataDir: string,
    readonly found: StoreKind,
  ) {
    super(
      `${dataDir} holds a ${found} store (${FILE_OF[found]}); open it with STORE=${found} (--store ${found}), or give another DATA_DIR`,
    );
    this.name = 'OtherStoreKindError';
  }
}

export interface OpenStoreOptions {
  kind: StoreKind;
  /** A directory, or `:memory:` (nothing outlives the process). */
  dataDir: string;
  collections: CollectionDefinition[];
}

export function openStore(options: OpenStoreOptions): Store {
  if (options.dataDir !== ':memory:' && !existsSync(join(options.dataDir, FILE_OF[options.kind]))) {
    const found = STORE_KINDS.find((kind) => kind !== options.kind && existsSync(join(options.dataDir, FILE_OF[kind])));
    if (found) throw new OtherStoreKindError(options.dataDir, found);
  }
  return options.kind === 'sqlite' ? openSqliteStore(options) : openJournalStore(options);
}
