// Every store backend, the default first: what STORE may name. Configuration (config.ts), start-up (main.ts,
// open-store.ts) and the app read this list; none of them names a backend.
import { journalBackend } from './journal/backend.js';
import { postgresBackend } from './postgres/backend.js';
import { sqliteBackend } from './sqlite/backend.js';

export const STORE_BACKENDS = [journalBackend, sqliteBackend, postgresBackend] as const;
