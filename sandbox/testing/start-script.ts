// The Node.js flags `npm start` gives the sandbox, read from the repository's package.json: the bench, the
// reliability suite and the cluster tests start their sandboxes with the same ones, so they run the sandbox as
// a user runs it and the flags have one source.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The entry `npm start` runs. */
export const SANDBOX_ENTRY = 'sandbox/main.ts';

/**
 * The flags between `node` and the entry in a start script of the form `exec node <flags> sandbox/main.ts`.
 * Throws for any other form: a bench that silently dropped a flag would measure something no user runs.
 */
export function nodeFlagsOf(startScript: string): string[] {
  const words = startScript.trim().split(/\s+/);
  const [exec, node, ...rest] = words;
  const entry = rest.pop();
  if (exec !== 'exec' || node !== 'node' || entry !== SANDBOX_ENTRY)
    throw new Error(`npm start is not "exec node <flags> ${SANDBOX_ENTRY}": ${startScript}`);
  return rest;
}

/** The flags `npm start` gives the sandbox, from `repoRoot`'s package.json. */
export function startScriptNodeFlags(repoRoot: string): string[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const start = manifest.scripts?.start;
  if (start === undefined) throw new Error('package.json has no start script');
  return nodeFlagsOf(start);
}
