#!/usr/bin/env node
// The `payments-conformance` bin. The CLI is TypeScript; tsx (a devDependency of this repository) loads it,
// so the command works from a clone after `npm install` with no build step.
import { tsImport } from 'tsx/esm/api';

/** @type {{ main: (argv: string[]) => Promise<number> }} */
const cli = await tsImport('./cli.ts', import.meta.url);
try {
  const code = await cli.main(process.argv.slice(2));
  // exit() rather than letting the loop drain: kept-alive sockets to the target must not delay CI.
  process.exit(code);
} catch (error) {
  process.stderr.write(`payments-conformance: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(2);
}
