// STORE=sqlite: one SQLite file in DATA_DIR (better-sqlite3, an optional dependency), for data larger than memory.
import { describeEmbedded, embeddedStartupError, type EmbeddedBackend } from '../backend.js';
import { openSqliteStore, SQLITE_FILE, SqliteUnavailableError } from './store.js';

export const sqliteBackend = {
  name: 'sqlite',
  summary: 'a SQLite file in DATA_DIR',
  options: {},
  file: SQLITE_FILE,
  open: ({ dataDir }, collections) => openSqliteStore({ dataDir, collections }),
  describe: (settings) => describeEmbedded('sqlite', settings),
  startupError: (error) =>
    error instanceof SqliteUnavailableError ? `${error.message}.` : embeddedStartupError(error),
} as const satisfies EmbeddedBackend<'sqlite'>;
