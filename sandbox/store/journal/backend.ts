// STORE=journal (the default): records in memory, every committed transaction a line of DATA_DIR/sandbox.journal.
import { describeEmbedded, embeddedStartupError, type EmbeddedBackend } from '../backend.js';
import { JOURNAL_FILE } from './journal-file.js';
import { openJournalStore } from './store.js';

export const journalBackend = {
  name: 'journal',
  summary: 'records in memory, a journal file in DATA_DIR',
  options: {},
  file: JOURNAL_FILE,
  open: ({ dataDir }, collections) => openJournalStore({ dataDir, collections }),
  describe: (settings) => describeEmbedded('journal', settings),
  startupError: embeddedStartupError,
} as const satisfies EmbeddedBackend<'journal'>;
