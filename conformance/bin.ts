#!/usr/bin/env node
// The `payments-conformance` bin (compiled to dist/bin.js).
import { main } from './cli.js';

try {
  const code = await main(process.argv.slice(2));
  // exit() rather than letting the loop drain: kept-alive sockets to the target must not delay CI.
  process.exit(code);
} catch (error) {
  process.stderr.write(`payments-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
}
