// The CLI in-process (main with captured streams) for usage, exit codes and reports, and once through the
// real bin to prove `payments-conformance` starts from a clone.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageVersion } from '@payments-contract/server/runtime/package-version';
import { main, parseCli, SECRET_VARIABLES, USAGE, type CliIo } from './cli.js';
import { preflightOperation } from './preflight.js';
import { loadContract } from './contract.js';
import { freePort } from './mock/prism.js';
import { startTarget, type Target } from './tests/target.js';
import { runConformance } from './index.js';
import { CHECK_NAMES, PROFILES, type CheckResult, type RunSummary } from './types.js';

const contract = loadContract();
const KEY = 'sk_test_cli_secret_key';
const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const only = ['--only', 'positive_data,response_conformance'];
let good: Target;
let broken: Target;
let brokenOperation: string;
let dir: string;

function io(tty = false): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return {
    stdout: { write: (text: string) => (out += text), isTTY: false },
    stderr: { write: (text: string) => (err += text), isTTY: tty, columns: 80 },
    env: {},
    out: () => out,
    err: () => err,
  };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'conformance-cli-'));
  good = await startTarget(contract, KEY);
  // One operation answers a status its contract does not document: not the one the preflight asks.
  brokenOperation =
    contract.model.operations.find((o) => o.operationId !== preflightOperation(contract)?.operationId)?.operationId ??
    '';
  broken = await startTarget(contract, KEY, ({ operation, authorized }) =>
    authorized && operation.operationId === brokenOperation ? { status: 418, body: '{}' } : undefined,
  );
});

afterAll(async () => {
  await Promise.all([good.close(), broken.close()]);
  rmSync(dir, { recursive: true, force: true });
});

describe('usage', () => {
  it.each([['--help'], ['-h']])('%s explains every flag, each with an example, and exits 0', async (flag) => {
    const streams = io();
    expect(await main([flag], streams)).toBe(0);
    const help = streams.out();
    for (const flag of [
      '--base-url',
      '--api-key',
      '--profile',
      '--spec',
      '--only',
      '--skip',
      '--junit',
      '--json',
      '--timeout-ms',
      '--concurrency',
      '--callback-listen',
      '--callback-public-url',
      '--callback-token',
      '--strict',
    ]) {
      expect(help).toContain(flag);
    }
    for (const profile of PROFILES) expect(help).toContain(profile);
    for (const check of CHECK_NAMES) expect(help).toContain(check);
    // Every flag has an "e.g." line.
    expect(USAGE.match(/e\.g\. /g)?.length).toBeGreaterThanOrEqual(14);
    for (const variable of Object.values(SECRET_VARIABLES)) expect(help).toContain(`  ${variable} `);
    expect(help).toContain('--version');
  });

  it("--version prints the version of the package the CLI ships in and exits 0, even without the run's flags", async () => {
    const streams = io();
    expect(await main(['--version'], streams)).toBe(0);
    expect(streams.out()).toBe(`${packageVersion(new URL('./cli.ts', import.meta.url).href)}\n`);
  });

  it.each([
    ['an unknown flag', ['--base-url', 'http://127.0.0.1:1', '--colour'], "Unknown option '--colour'"],
    ['a positional argument', ['--base-url', 'http://127.0.0.1:1', 'extra'], "Unexpected argument 'extra'"],
    ['a flag without its value', ['--base-url'], "Option '--base-url <value>' argument missing"],
  ])('exits 2 with the reason and the usage for %s', async (_name, argv, reason) => {
    const streams = io();
    expect(await main(argv, { ...streams, env: { PAYMENTS_API_KEY: KEY } })).toBe(2);
    expect(streams.err().startsWith(`payments-conformance: ${reason}`)).toBe(true);
    expect(streams.err().endsWith(`\n\n${USAGE}\n`)).toBe(true);
    expect(streams.out()).toBe('');
  });

  it.each([
    ['no flags', []],
    ['no key', ['--base-url', 'http://127.0.0.1:1']],
    ['a base URL that is not http', ['--base-url', 'ftp://x', '--api-key', 'k']],
    ['an unknown profile', ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--profile', 'everything']],
    ['a timeout that is not a number', ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--timeout-ms', 'soon']],
    ['zero concurrency', ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--concurrency', '0']],
    [
      'a callback address without a port',
      ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--callback-listen', 'localhost'],
    ],
    [
      'a callback token without a receiver',
      ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--callback-token', 't'],
    ],
    [
      'a callback wait without a receiver',
      ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--callback-wait-ms', '100'],
    ],
    [
      'a retry interval that is not a number',
      [
        '--base-url',
        'http://127.0.0.1:1',
        '--api-key',
        'k',
        '--callback-listen',
        '127.0.0.1:0',
        '--callback-retry-interval-ms',
        'fast',
      ],
    ],
    [
      'a spec that does not exist',
      ['--base-url', 'http://127.0.0.1:1', '--api-key', 'k', '--spec', '/no/such/openapi.json'],
    ],
  ])('exits 2 with a message for %s', async (_name, argv) => {
    const streams = io();
    expect(await main(argv, streams)).toBe(2);
    expect(streams.err()).toMatch(/^payments-conformance: .+\nRun with --help for every option\.\n$/);
  });

  it('parses repeated and comma-separated patterns, callbacks and defaults', () => {
    const parsed = parseCli(
      [
        '--base-url',
        'http://h:1',
        '--only',
        'auth,positive_data',
        '--only',
        'x:*',
        '--skip',
        'y',
        '--callback-listen',
        '[::1]:8787',
        '--callback-token',
        't',
        '--callback-wait-ms',
        '60000',
        '--callback-retry-interval-ms',
        '500',
        '--strict',
      ],
      { PAYMENTS_API_KEY: 'from-env' },
    );
    if (parsed.kind !== 'run') throw new Error('unexpected help');
    expect(parsed.options).toMatchObject({
      apiKey: 'from-env',
      profile: 'stateless',
      only: ['auth', 'positive_data', 'x:*'],
      skip: ['y'],
      timeoutMs: 10_000,
      concurrency: 8,
      strict: true,
      callbacks: { listen: { host: '::1', port: 8787 }, token: 't', waitMs: 60_000, retryIntervalMs: 500 },
    });
  });
});

describe('secrets from the environment', () => {
  const base = ['--base-url', 'http://h:1', '--callback-listen', '127.0.0.1:0'];
  const run = (argv: string[], env: CliIo['env']) => {
    const parsed = parseCli(argv, env);
    if (parsed.kind !== 'run') throw new Error('expected a run');
    return { apiKey: parsed.options.apiKey, token: parsed.options.callbacks?.token };
  };

  it('takes the API key and the callback token from PAYMENTS_API_KEY and PAYMENTS_CALLBACK_TOKEN, so neither shows in `ps`', () => {
    expect(run(base, { PAYMENTS_API_KEY: 'sk_test_env', PAYMENTS_CALLBACK_TOKEN: 'cbt_env' })).toEqual({
      apiKey: 'sk_test_env',
      token: 'cbt_env',
    });
  });

  it('lets a flag win over its variable, and counts an empty variable as unset', () => {
    expect(
      run([...base, '--api-key', 'sk_test_flag', '--callback-token', 'cbt_flag'], {
        PAYMENTS_API_KEY: 'sk_test_env',
        PAYMENTS_CALLBACK_TOKEN: 'cbt_env',
      }),
    ).toEqual({ apiKey: 'sk_test_flag', token: 'cbt_flag' });
    expect(run(base, { PAYMENTS_API_KEY: 'sk_test_env', PAYMENTS_CALLBACK_TOKEN: '' })).toEqual({
      apiKey: 'sk_test_env',
      token: undefined,
    });
    expect(() => parseCli(base, { PAYMENTS_API_KEY: '' })).toThrow(/set PAYMENTS_API_KEY \(or give --api-key\)/);
  });

  it("takes the isolation keys from their variables or flags, and refuses one that is the run's own key", () => {
    const isolation = (argv: string[], env: CliIo['env']) => {
      const parsed = parseCli(['--base-url', 'http://h:1', ...argv], env);
      return parsed.kind === 'run' ? parsed.options.isolation : undefined;
    };
    expect(
      isolation([], {
        PAYMENTS_API_KEY: 'sk_test_a',
        PAYMENTS_OTHER_MERCHANT_API_KEY: 'sk_test_b',
        PAYMENTS_OTHER_MODE_API_KEY: 'sk_live_a',
      }),
    ).toEqual({ otherMerchantKey: 'sk_test_b', otherModeKey: 'sk_live_a' });
    expect(
      isolation(['--other-mode-api-key', 'sk_live_flag'], {
        PAYMENTS_API_KEY: 'sk_test_a',
        PAYMENTS_OTHER_MODE_API_KEY: 'sk_live_a',
      }),
    ).toEqual({ otherModeKey: 'sk_live_flag' });
    expect(isolation([], { PAYMENTS_API_KEY: 'sk_test_a', PAYMENTS_OTHER_MERCHANT_API_KEY: '' })).toBe(undefined);
    expect(() =>
      parseCli(['--base-url', 'http://h:1'], {
        PAYMENTS_API_KEY: 'sk_test_a',
        PAYMENTS_OTHER_MERCHANT_API_KEY: 'sk_test_a',
      }),
    ).toThrow(/PAYMENTS_OTHER_MERCHANT_API_KEY \(--other-merchant-api-key\) is the same key as PAYMENTS_API_KEY/);
  });

  it('leaves PAYMENTS_CALLBACK_TOKEN alone in a run without a receiver (a CI environment carries it for every run)', () => {
    const parsed = parseCli(['--base-url', 'http://h:1'], {
      PAYMENTS_API_KEY: 'sk_test_env',
      PAYMENTS_CALLBACK_TOKEN: 'cbt_env',
    });
    expect(parsed.kind === 'run' && parsed.options.callbacks).toBe(undefined);
  });
});

describe('runs', () => {
  it('exits 2 when the target does not answer', async () => {
    const port = await freePort();
    const streams = io();
    expect(await main(['--base-url', `http://127.0.0.1:${port}`, '--api-key', KEY], streams)).toBe(2);
    expect(streams.err()).toMatch(/does not answer/);
  });

  it('exits 0 against a conforming target, with counts per check, the verdict and both reports', async () => {
    const streams = io();
    const junit = join(dir, 'nested', 'good.xml');
    const json = join(dir, 'good.json');
    expect(
      await main(['--base-url', good.url, '--api-key', KEY, ...only, '--junit', junit, '--json', json], streams),
    ).toBe(0);
    expect(streams.out()).toMatch(
      /^check +passed +failed +not run +n\/a +warnings\nresponse_conformance +\d+ +0 +0 +0 +0\npositive_data /m,
    );
    expect(streams.out()).toMatch(
      /^PASS: \d+ passed, 0 failed, 0 not run, 0 not applicable, 0 warnings; \d+ requests in [\d.]+ s \(\d+ requests\/s\)/m,
    );
    // Not a terminal (CI): no line per result, and the summary is short.
    expect(streams.err()).toBe('');
    expect(streams.out().split('\n').length).toBeLessThanOrEqual(10);
    expect(readFileSync(junit, 'utf8')).toContain(
      `<testcase classname="positive_data" name="${contract.model.operations[0]?.operationId ?? ''}"`,
    );
    const report = JSON.parse(readFileSync(json, 'utf8')) as {
      counts: { failed: number };
      contract: { version: string };
    };
    expect(report.counts.failed).toBe(0);
    expect(report.contract.version).toBe(contract.model.version);
  });

  it('exits 1 and shows the failure with its status, body and a curl line that masks the key', async () => {
    const streams = io();
    expect(await main(['--base-url', broken.url, '--api-key', KEY, ...only], streams)).toBe(1);
    const out = streams.out();
    expect(out).toMatch(new RegExp(`FAIL response_conformance ${brokenOperation}\\n  - status 418 is not documented`));
    expect(out).toContain('status: 418');
    expect(out).toMatch(/reproduce: curl .*\$PAYMENTS_API_KEY/);
    expect(out).not.toContain(KEY);
    expect(streams.err()).not.toContain(KEY);
  });

  it('with --verbose, also writes a line per result and the table of operations by check', async () => {
    const streams = io();
    expect(await main(['--base-url', good.url, '--api-key', KEY, ...only, '--verbose'], streams)).toBe(0);
    expect(
      streams
        .err()
        .split('\n')
        .filter((line) => line.startsWith('PASS ')).length,
    ).toBe(contract.model.operations.length * 2);
    expect(streams.out()).toMatch(/^operation +response_conformance +positive_data/m);
  });

  it('exits 3 when a check the profile selects cannot run, saying first what was not checked and why', async () => {
    const streams = io();
    const junit = join(dir, 'incomplete.xml');
    // The full profile's callbacks need a receiver (--callback-listen); positive_data runs as usual.
    expect(
      await main(
        [
          '--base-url',
          good.url,
          '--api-key',
          KEY,
          '--profile',
          'full',
          '--only',
          'callbacks,positive_data',
          '--junit',
          junit,
        ],
        streams,
      ),
    ).toBe(3);
    const lines = streams.out().split('\n');
    expect(lines[0]).toBe('Not checked (the run is incomplete):');
    expect(lines[1]).toMatch(
      /^  callbacks \w+, \w+, \w+ \(\+\d+ more\): no callback receiver: pass --callback-listen HOST:PORT/,
    );
    expect(streams.out()).toMatch(/^INCOMPLETE: \d+ passed, 0 failed, \d+ not run/m);
    expect(readFileSync(junit, 'utf8')).toContain('<error message="incomplete:');
  });

  it('exits 0 when what cannot run is left out by name', async () => {
    const streams = io();
    expect(
      await main(
        [
          '--base-url',
          good.url,
          '--api-key',
          KEY,
          '--profile',
          'full',
          '--only',
          'callbacks,positive_data',
          '--skip',
          'callbacks',
        ],
        streams,
      ),
    ).toBe(0);
    expect(streams.out()).toContain(
      'Chosen by name (what this leaves out is not counted as not run): --only callbacks,positive_data --skip callbacks',
    );
  });

  it('exits 1 when a check failed, even if another could not run', async () => {
    expect(
      await main(
        [
          '--base-url',
          broken.url,
          '--api-key',
          KEY,
          '--profile',
          'full',
          '--only',
          'callbacks,positive_data,response_conformance',
        ],
        io(),
      ),
    ).toBe(1);
  });

  it('shows one live line on a terminal', async () => {
    const streams = io(true);
    await main(['--base-url', good.url, '--api-key', KEY, ...only], streams);
    expect(streams.err()).toMatch(/\r\u001b\[2K\d+ checks done on \d+ operations, 0 failed so far/);
    expect(streams.err()).not.toContain('\n');
  });

  it('gives the same results as the library', async () => {
    const json = join(dir, 'same.json');
    expect(await main(['--base-url', broken.url, '--api-key', KEY, ...only, '--json', json], io())).toBe(1);
    const viaCli = (JSON.parse(readFileSync(json, 'utf8')) as RunSummary).results;
    const library = await runConformance({
      baseUrl: broken.url,
      apiKey: KEY,
      profile: 'stateless',
      only: ['positive_data', 'response_conformance'],
      timeoutMs: 10_000,
      concurrency: 8,
      strict: false,
    });
    const outcomes = (results: CheckResult[]): string[] =>
      results.map((r) => `${r.check} ${r.subject} ${r.outcome} ${r.findings.map((f) => f.message).join('|')}`).sort();
    expect(outcomes(viaCli)).toEqual(outcomes(library.results));
    expect(library.verdict).toBe('fail');
  });

  it('exits 2 when --only selects nothing', async () => {
    const streams = io();
    expect(await main(['--base-url', good.url, '--api-key', KEY, '--only', 'no_such_check'], streams)).toBe(2);
    expect(streams.err()).toMatch(/left nothing to run/);
  });

  it('runs as the payments-conformance bin', async () => {
    // Asynchronously: the target answers from this very process.
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'conformance/dist/bin.js'), '--base-url', good.url, ...only],
      { env: { ...process.env, PAYMENTS_API_KEY: KEY }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(/Error/);
    expect(code).toBe(0);
    expect(stdout).toMatch(/0 failed/);
  }, 60_000);
});
