#!/usr/bin/env node
// The `payments-sandbox` bin (compiled to dist/bin.js).
import { main } from './main.js';

try {
  process.exit(await main(process.argv.slice(2)));
} catch (error) {
  process.stderr.write(
    `payments-sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
}
