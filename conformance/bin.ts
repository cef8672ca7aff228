#!/usr/bin/env node
// The `payments-conformance` bin (compiled to dist/bin.js). --help, --version and a command line that cannot
// be read are answered before the suite is loaded (command.ts): loading it and ajv takes longer than
// starting Node.js does. Anything else goes to the suite, which reads the command line again in full.
import { readCommandLine } from '@payments-contract/server/runtime/command-line';
import { COMMAND } from './command.js';

const argv = process.argv.slice(2);
const answered = readCommandLine(COMMAND, argv);
if (typeof answered === 'number') process.exit(answered);

try {
  const { main } = await import('./cli.js');
  const code = await main(argv);
  // exit() rather than letting the loop drain: kept-alive sockets to the target must not delay CI.
  process.exit(code);
} catch (error) {
  process.stderr.write(
    `payments-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(2);
}
