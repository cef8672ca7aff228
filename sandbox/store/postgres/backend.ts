// STORE=postgres: the DATABASE_URL database, which several sandboxes share (store.ts says how).
import type { StoreBackend } from '../backend.js';
import { DatabaseUnreachableError } from './errors.js';
import { NewerSchemaError } from './schema.js';
import { DEFAULT_POOL_SIZE, DEFAULT_STATEMENT_TIMEOUT_MS, describeTarget, openPostgresStore } from './store.js';

export const postgresBackend = {
  name: 'postgres',
  summary: 'the DATABASE_URL database, which several sandboxes can share',
  options: {
    'database-url': {
      env: 'DATABASE_URL',
      description: 'postgres://user:password@host:port/database (default: the PG* variables, as psql reads them)',
    },
    'database-pool-size': {
      env: 'DATABASE_POOL_SIZE',
      description: `connections of this sandbox at most (default ${DEFAULT_POOL_SIZE})`,
    },
    'database-statement-timeout-ms': {
      env: 'DATABASE_STATEMENT_TIMEOUT_MS',
      description: `a statement running longer is cancelled and answered 503 (default ${DEFAULT_STATEMENT_TIMEOUT_MS})`,
    },
  },
  settings: (read) => ({
    database: {
      url: read.get<string | null>(
        'database-url',
        (label, value) => {
          let parsed: URL;
          try {
            parsed = new URL(value);
          } catch {
            return read.refuse(`${label} must be a postgres:// URL (postgres://user:password@host:port/database)`);
          }
          // The message never repeats the URL: it may hold a password.
          if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
            return read.refuse(`${label} must be a postgres:// or postgresql:// URL, not ${parsed.protocol}//…`);
          return value;
        },
        null,
      ),
      poolSize: read.get(
        'database-pool-size',
        (label, value) => read.integer(label, value, 1, 1000),
        DEFAULT_POOL_SIZE,
      ),
      statementTimeoutMs: read.get(
        'database-statement-timeout-ms',
        (label, value) => read.integer(label, value, 100, 24 * 60 * 60 * 1000),
        DEFAULT_STATEMENT_TIMEOUT_MS,
      ),
    },
  }),
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
