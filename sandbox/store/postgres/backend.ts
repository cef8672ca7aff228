// STORE=postgres: the DATABASE_URL database, which several sandboxes share (store.ts says how).
import type { StoreBackend } from '../backend.js';
import { DatabaseUnreachableError } from './errors.js';
import { NewerSchemaError } from './schema.js';
import { describeTarget, openPostgresStore } from './store.js';

export const postgresBackend = {
  name: 'postgres',
  summary: 'the DATABASE_URL database, which several sandboxes can share',
  options: ['database-url', 'database-pool-size', 'database-statement-timeout-ms'],
  open: ({ database }, collections) =>
    openPostgresStore({
      ...(database.url ? { connectionString: database.url } : {}),
      collections,
      poolSize: database.poolSize,
      statementTimeoutMs: database.statementTimeoutMs,
    }),
  describe: ({ database }) =>
    `PostgreSQL at ${describeTarget(database.url ?? undefined)} (postgres store: every sandbox started on it shares the data)`,
  startupError: (error) => {
    if (error instanceof DatabaseUnreachableError)
      return `${error.message}; check DATABASE_URL (--database-url) or the PG* variables, and that the database is running.`;
    if (error instanceof NewerSchemaError) return `${error.message}.`;
    return undefined;
  },
} as const satisfies StoreBackend<'postgres'>;
