// What a store backend is to the rest of the sandbox: one descriptor in its own folder (journal/, sqlite/,
// postgres/, each with the same file names: store.ts opens it, store.test.ts runs the shared contract suite
// on it, backend.ts describes it), and one list of them (backends.ts). Configuration, start-up and the app
// read the list; adding a backend is a folder and a line there.
import { DataDirInUseError, OtherStoreKindError, type CollectionDefinition, type Store } from './store.js';

/** STORE=postgres: where the database is and how this process uses it. */
export interface DatabaseSettings {
  /** postgres://…; null: the PG* variables say (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE). */
  url: string | null;
  /** Connections of this process at most. */
  poolSize: number;
  /** A statement running longer is cancelled and its request answered 503. */
  statementTimeoutMs: number;
}

/** What a backend is opened with: the part of the sandbox's configuration about its data. */
export interface StoreSettings {
  /** DATA_DIR: a directory for an embedded store, or `:memory:` (nothing outlives the process). */
  dataDir: string;
  database: DatabaseSettings;
}

/** An option of the configuration (a flag and its variable) that only a backend reads. */
export interface StoreOption {
  env: string;
  description: string;
}

/** How a backend reads its options: the configuration (config.ts) gives it, and says a value's mistakes. */
export interface OptionReader {
  /** The option `name`'s value parsed, when given (as a flag or its variable); otherwise `fallback`. */
  get<T>(name: string, parse: (label: string, value: string) => T, fallback: T): T;
  /** `value` as a whole number from `min` to `max`, or the configuration's error naming `label`. */
  integer(label: string, value: string, min: number, max: number): number;
  /** Refuses the configuration with `message`, which the operator reads. */
  refuse(message: string): never;
}

export interface StoreBackend<Name extends string = string> {
  /** What STORE names it by. */
  readonly name: Name;
  /** Where it keeps the data, for STORE's help. */
  readonly summary: string;
  /** The options of its own, by flag name: the configuration (config.ts) offers them, marked as its. */
  readonly options: Readonly<Record<string, StoreOption>>;
  /** Its settings, read from those options (a backend with none leaves this out). */
  readonly settings?: (read: OptionReader) => Pick<StoreSettings, 'database'>;
  /** An embedded backend: the file it keeps in DATA_DIR (one sandbox process holds it). */
  readonly file?: string;
  open(settings: StoreSettings, collections: CollectionDefinition[]): Store | Promise<Store>;
  /** Where the data is, for the start-up banner. */
  describe(settings: StoreSettings): string;
  /** A start-up failure of this backend as the line the sandbox prints before exiting with 2; undefined if not one. */
  startupError(error: unknown): string | undefined;
}

/** An embedded backend: opened at once, from its file in DATA_DIR. */
export interface EmbeddedBackend<Name extends string = string> extends StoreBackend<Name> {
  readonly file: string;
  open(settings: Pick<StoreSettings, 'dataDir'>, collections: CollectionDefinition[]): Store;
}

/** The banner line of an embedded backend. */
export const describeEmbedded = (name: string, { dataDir }: Pick<StoreSettings, 'dataDir'>): string =>
  dataDir === ':memory:' ? 'in memory (lost at exit)' : `${dataDir} (${name} store)`;

/** The start-up failures every embedded backend shares: its DATA_DIR held, or holding another kind's file. */
export function embeddedStartupError(error: unknown): string | undefined {
  if (error instanceof DataDirInUseError) return `${error.message}; give this one another with DATA_DIR or --data-dir.`;
  if (error instanceof OtherStoreKindError) return `${error.message}.`;
  return undefined;
}
