// `npm run bench:reopen`: its command line alone. The benchmark (reopen-measure.ts, which says what it measures)
// is loaded only to run, or to open one store in a process of its own (--child), so --help, --version and a
// usage mistake answer without loading the large-journal writer.
//
//   npm run bench:reopen -- [--bytes 1140000000] [--store journal,sqlite]
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';
import { isStoreKind, STORE_KINDS } from '../store/open-store.js';

const MiB = 1024 * 1024;

const COMMAND = {
  name: 'bench:reopen',
  usage: `Usage: npm run bench:reopen -- [--bytes ${1088 * MiB}] [--store ${STORE_KINDS.join(',')}]

How long each store takes to open again over a large data directory, and the memory that takes.

  --bytes N                  size of the journal to write (default ${1088 * MiB}, about 1 GiB)
  --store KINDS              the stores to open, separated by commas (default ${STORE_KINDS.join(',')})
${STANDARD_USAGE_LINES}`,
  // --child <store> <data dir> is how the benchmark runs each opening in a process of its own.
  options: {
    bytes: { type: 'string', default: String(1088 * MiB) },
    store: { type: 'string', default: STORE_KINDS.join(',') },
    child: { type: 'string' },
  },
  allowPositionals: true,
  module: import.meta.url,
} as const;

async function main(argv: readonly string[]): Promise<number> {
  const line = readCommandLine(COMMAND, argv);
  if (typeof line === 'number') return line;
  const { values, positionals } = line;
  if (values.child !== undefined) {
    if (!isStoreKind(values.child) || positionals[0] === undefined) throw new Error('--child <store> <data dir>');
    const { measureOpening } = await import('./reopen-measure.js');
    console.log(JSON.stringify(await measureOpening(values.child, positionals[0])));
    return 0;
  }
  const bytes = Number(values.bytes);
  const stores = values.store.split(',').filter(isStoreKind);
  if (!Number.isSafeInteger(bytes) || bytes < 1 || stores.length === 0) {
    return refuse(
      COMMAND,
      new UsageError(
        `--bytes is a whole number of bytes; --store is one or more of ${STORE_KINDS.join(', ')}, separated by commas`,
      ),
    );
  }
  const { benchReopen } = await import('./reopen-measure.js');
  return benchReopen(bytes, stores);
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`bench:reopen: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);
