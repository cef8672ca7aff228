// Opens the store the configuration names, from the list of backends (backends.ts). An embedded backend keeps
// its own file in DATA_DIR; a directory that holds only another embedded kind's file is refused with the
// option that would open it, rather than started empty beside data the user expects to see.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EmbeddedBackend, StoreSettings } from './backend.js';
import { STORE_BACKENDS } from './backends.js';
import { OtherStoreKindError, type CollectionDefinition, type Store } from './store.js';

type AnyBackend = (typeof STORE_BACKENDS)[number];
type Embedded = Extract<AnyBackend, { file: string }>;

/** What STORE may name. */
export type StoreChoice = AnyBackend['name'];
export const STORE_CHOICES: readonly StoreChoice[] = STORE_BACKENDS.map((backend) => backend.name);
/** The embedded kinds: data in DATA_DIR, one process. */
export type StoreKind = Embedded['name'];

const isEmbedded = (backend: AnyBackend): backend is Embedded => 'file' in backend;
const EMBEDDED: readonly Embedded[] = STORE_BACKENDS.filter(isEmbedded);
export const STORE_KINDS: readonly StoreKind[] = EMBEDDED.map((backend) => backend.name);
export const isStoreKind = (name: string): name is StoreKind => (STORE_KINDS as readonly string[]).includes(name);

/** The file each embedded kind keeps in DATA_DIR. */
export const FILE_OF = Object.fromEntries(EMBEDDED.map((backend) => [backend.name, backend.file])) as Record<
  StoreKind,
  string
>;

export const backendOf = (name: StoreChoice): AnyBackend => STORE_BACKENDS.find((backend) => backend.name === name)!;

export interface OpenStoreOptions {
  kind: StoreKind;
  /** A directory, or `:memory:` (nothing outlives the process). */
  dataDir: string;
  collections: CollectionDefinition[];
}

/** Opens an embedded store (at once: tests and tools open them without the rest of the configuration). */
export function openStore(options: OpenStoreOptions): Store {
  const backend: EmbeddedBackend = EMBEDDED.find((candidate) => candidate.name === options.kind)!;
  if (options.dataDir !== ':memory:' && !existsSync(join(options.dataDir, backend.file))) {
    const found = EMBEDDED.find(
      (other) => other.name !== options.kind && existsSync(join(options.dataDir, other.file)),
    );
    if (found) throw new OtherStoreKindError(options.dataDir, found.name, found.file);
  }
  return backend.open(options, options.collections);
}

/** Opens the store `choice` names with the configuration's settings. */
export async function openConfiguredStore(
  choice: StoreChoice,
  settings: StoreSettings,
  collections: CollectionDefinition[],
): Promise<Store> {
  return isStoreKind(choice)
    ? openStore({ kind: choice, dataDir: settings.dataDir, collections })
    : backendOf(choice).open(settings, collections);
}

/** A start-up failure of any backend as the line the sandbox prints before exiting with 2; undefined if none. */
export function storeStartupError(error: unknown): string | undefined {
  for (const backend of STORE_BACKENDS) {
    const line = backend.startupError(error);
    if (line !== undefined) return line;
  }
  return undefined;
}
