// The PostgreSQL store in tests: a schema of its own for each "data directory" a test asks for, so tests
// share one throwaway server but never each other's data. No vitest here: child processes use it too.
import { basename } from 'node:path';
import type { CollectionDefinition, Store } from '../../store.js';
import { openPostgresStore, type PostgresStoreOptions } from '../store.js';

/** The variable a child process (the crash writer) reads the test server's URL from. */
export const TEST_DATABASE_URL = 'SANDBOX_TEST_DATABASE_URL';

let fresh = 0;

/** The schema standing for a data directory: the directory's own name, or a new one for `:memory:`. */
export function schemaFor(dataDir: string): string {
  const name = dataDir === ':memory:' ? `fresh_${process.pid}_${++fresh}` : basename(dataDir);
  return `t_${name.toLowerCase().replace(/[^a-z0-9_]/g, '_')}`;
}

export function openTestStore(
  url: string,
  dataDir: string,
  collections: CollectionDefinition[],
  options: Partial<PostgresStoreOptions> = {},
): Promise<Store> {
  return openPostgresStore({ connectionString: url, schema: schemaFor(dataDir), collections, ...options });
}
