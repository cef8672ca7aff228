// Reads what `payments-contract diff` compares: a bundled contract file, or a git revision of `spec/`
// that it bundles itself, as `npm run bundle` does (Redocly's bundle into a temporary folder).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { JsonObject } from '@payments-contract/model/types';
import { isObject } from './json.js';

/** Which contract of a revision: the service's (spec/openapi.yaml) or the sandbox control API's. */
export type DocumentKind = 'service' | 'control';
export const DOCUMENT_ROOTS: Record<DocumentKind, string> = {
  service: 'spec/openapi.yaml',
  control: 'spec/sandbox.yaml',
};

/** A contract argument that cannot be read: the command prints the message and exits 2. */
export class ContractArgumentError extends Error {
  override name = 'ContractArgumentError';
}

export interface Loaded {
  doc: JsonObject;
  /** What the argument turned out to be, for messages: `file x.json`, `git revision main`. */
  source: string;
}

function parseContract(text: string, source: string): JsonObject {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ContractArgumentError(
      `${source} is not JSON (${error instanceof Error ? error.message : String(error)}); bundle a YAML contract first (redocly bundle --ext json)`,
    );
  }
  if (!isObject(doc as never) || typeof (doc as JsonObject).openapi !== 'string')
    throw new ContractArgumentError(`${source} is not an OpenAPI document (no \`openapi\` field)`);
  return doc as JsonObject;
}

const git = (cwd: string, args: string[]): string =>
  execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });

function isRevision(cwd: string, revision: string): boolean {
  try {
    git(cwd, ['rev-parse', '--verify', '--quiet', `${revision}^{commit}`]);
    return true;
  } catch {
    return false;
  }
}

/** Redocly's command line: the project's own install, else one next to this package. */
function redoclyBin(cwd: string): string {
  const require = createRequire(import.meta.url);
  for (const paths of [[cwd], undefined]) {
    try {
      const manifest = require.resolve('@redocly/cli/package.json', paths ? { paths } : undefined);
      return join(dirname(manifest), 'bin/cli.js');
    } catch {
      // Try the next place.
    }
  }
  throw new ContractArgumentError(
    'bundling a git revision needs @redocly/cli (npm install --save-dev @redocly/cli), or pass bundled contract files',
  );
}

/** Bundles `spec/` as it was at `revision` (the repository at `cwd`). */
export function bundleRevision(cwd: string, revision: string, kind: DocumentKind): Loaded {
  const source = `git revision ${revision} (${DOCUMENT_ROOTS[kind]})`;
  if (!isRevision(cwd, revision))
    throw new ContractArgumentError(`${revision} is neither a file nor a git revision of ${cwd}`);
  const scratch = mkdtempSync(join(tmpdir(), 'contract-diff-'));
  try {
    // The bundle reads redocly.yaml (plugins, decorators) from where it runs: take the revision's too.
    const paths = [
      'spec',
      ...(git(cwd, ['ls-tree', '--name-only', revision, 'redocly.yaml']).trim() === '' ? [] : ['redocly.yaml']),
    ];
    const archive = execFileSync('git', ['archive', '--format=tar', revision, ...paths], {
      cwd,
      maxBuffer: 256 * 1024 * 1024,
    });
    execFileSync('tar', ['-x', '-C', scratch], { input: archive });
    if (!existsSync(join(scratch, DOCUMENT_ROOTS[kind])))
      throw new ContractArgumentError(`${revision} has no ${DOCUMENT_ROOTS[kind]}`);
    const output = join(scratch, 'bundle.json');
    try {
      execFileSync(
        process.execPath,
        [redoclyBin(cwd), 'bundle', DOCUMENT_ROOTS[kind], '--ext', 'json', '--output', output],
        { cwd: scratch, env: { ...process.env, REDOCLY_TELEMETRY: 'off' }, stdio: ['ignore', 'pipe', 'pipe'] },
      );
    } catch (error) {
      const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
      throw new ContractArgumentError(`bundling ${source} failed: ${stderr.trim().split('\n').slice(-3).join(' ')}`);
    }
    return { doc: parseContract(readFileSync(output, 'utf8'), source), source };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A contract argument: `git:REV` is a revision; otherwise an existing file is read as a bundled contract
 * and anything else is tried as a revision.
 */
export function loadContract(argument: string, kind: DocumentKind, cwd: string = process.cwd()): Loaded {
  if (argument.startsWith('git:')) return bundleRevision(cwd, argument.slice('git:'.length), kind);
  const path = resolve(cwd, argument);
  if (existsSync(path))
    return { doc: parseContract(readFileSync(path, 'utf8'), `file ${argument}`), source: `file ${argument}` };
  return bundleRevision(cwd, argument, kind);
}
