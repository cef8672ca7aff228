#!/usr/bin/env node
// The `payments-sandbox` bin. The sandbox is TypeScript; tsx (a devDependency of this repository) loads it,
// so the command works from a clone after `npm install` with no build step.
import { tsImport } from 'tsx/esm/api';

/** @type {{ main: (argv: readonly string[]) => Promise<number> }} */
const sandbox = await tsImport('./main.ts', import.meta.url);
try {
  process.exit(await sandbox.main(process.argv.slice(2)));
} catch (error) {
  process.stderr.write(`payments-sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
}
