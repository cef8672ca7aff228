import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import { UsageError } from '@payments-contract/server/runtime/command-line';
import { packageVersion } from '@payments-contract/server/runtime/package-version';
import {
  callbackUrlSettings,
  contractRetryDelayMs,
  DEFAULT_LIVE_SECRET_KEY,
  DEFAULT_MERCHANT_ID,
  DEFAULT_TEST_SECRET_KEY,
  parseConfig,
  type SandboxConfig,
} from './config.js';

const config = (argv: string[] = [], env: Record<string, string> = {}, cwd = '/srv/app'): SandboxConfig => {
  const parsed = parseConfig({ argv, env, cwd });
  if (parsed.kind !== 'config') throw new Error('expected a config');
  return parsed.config;
};
const refusal = (argv: string[], env: Record<string, string> = {}): string => {
  try {
    parseConfig({ argv, env, cwd: '/srv/app' });
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
};

describe('parseConfig', () => {
  it('has the documented defaults', () => {
    const defaults = config();
    expect(defaults.port).toBe(3000);
    expect(defaults.host).toBe('127.0.0.1');
    expect(defaults.dataDir).toBe('/srv/app/.sandbox-data');
    expect(defaults.tls).toBeNull();
    expect(defaults.callbackUrl).toBeNull();
    expect(defaults.validateResponses).toBe(true);
    expect(defaults.store).toBe('journal');
    expect(defaults.merchants).toEqual([
      {
        id: DEFAULT_MERCHANT_ID,
        ownerId: DEFAULT_MERCHANT_ID,
        keys: { test: DEFAULT_TEST_SECRET_KEY, live: DEFAULT_LIVE_SECRET_KEY },
        callbackTokens: { test: expect.any(String), live: expect.any(String) },
      },
    ]);
    expect(DEFAULT_TEST_SECRET_KEY.startsWith('sk_test_')).toBe(true);
    expect(defaults.given.size).toBe(0);
  });

  it("takes the retry delay from the contract's x-delivery", () => {
    const seconds = Object.values(webhookMetadata)[0]!.delivery.retry_interval_seconds;
    expect(contractRetryDelayMs()).toBe(seconds * 1000);
    expect(config().callbackRetryDelayMs).toBe(seconds * 1000);
  });

  it('reads every variable, and a flag wins over its variable', () => {
    const env = {
      PORT: '4000',
      HOST: '0.0.0.0',
      SANDBOX_SECRET_KEY: 'sk_test_env',
      SANDBOX_CALLBACK_TOKEN: 'tok-env',
      SANDBOX_CALLBACK_URL: 'http://127.0.0.1:9000/cb',
      DATA_DIR: 'data',
      STORE: 'sqlite',
      CALLBACK_RETRY_DELAY_MS: '250',
      SANDBOX_VALIDATE_RESPONSES: 'false',
    };
    const fromEnv = config([], env);
    expect(fromEnv).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      callbackUrl: 'http://127.0.0.1:9000/cb',
      dataDir: '/srv/app/data',
      store: 'sqlite',
      callbackRetryDelayMs: 250,
      validateResponses: false,
    });
    expect(fromEnv.merchants[0]!.keys.test).toBe('sk_test_env');
    expect(fromEnv.merchants[0]!.callbackTokens.test).toBe('tok-env');
    expect([...fromEnv.given].sort()).toEqual([
      'callback-retry-delay-ms',
      'callback-token',
      'callback-url',
      'data-dir',
      'host',
      'port',
      'secret-key',
      'store',
      'validate-responses',
    ]);

    const flagged = config(
      ['--port', '5000', '--secret-key=sk_test_flag', '--data-dir', ':memory:', '--callback-retry-delay-ms', '10'],
      env,
    );
    expect(flagged).toMatchObject({ port: 5000, dataDir: ':memory:', callbackRetryDelayMs: 10, host: '0.0.0.0' });
    expect(flagged.merchants[0]!.keys.test).toBe('sk_test_flag');
  });

  it('keeps data in the journal store unless told to use SQLite or PostgreSQL, and names the kinds it knows otherwise', () => {
    expect(config(['--store', 'sqlite']).store).toBe('sqlite');
    expect(config([], { STORE: 'JOURNAL' }).store).toBe('journal');
    expect(config(['--store', 'postgres']).store).toBe('postgres');
    expect(refusal(['--store', 'mysql'])).toMatch(/--store must be one of journal, sqlite, postgres, not "mysql"/);
  });

  it('reads where the database is and how much of it to use, refusing a URL that is not postgres:// without repeating it', () => {
    expect(config([]).database).toEqual({ url: null, poolSize: 3, statementTimeoutMs: 5000 });
    expect(
      config(['--database-pool-size', '4'], {
        DATABASE_URL: 'postgres://u:p@db:5432/sandbox',
        DATABASE_STATEMENT_TIMEOUT_MS: '2000',
      }).database,
    ).toEqual({ url: 'postgres://u:p@db:5432/sandbox', poolSize: 4, statementTimeoutMs: 2000 });
    const refused = refusal([], { DATABASE_URL: 'mysql://u:secret@db/sandbox' });
    expect(refused).toMatch(/DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
    expect(refused).not.toContain('secret');
    expect(refusal(['--database-pool-size', '0'])).toMatch(/--database-pool-size must be a whole number from 1/);
  });

  it('logs human lines at info unless LOG_FORMAT and LOG_LEVEL (or their flags) say otherwise', () => {
    expect(config([])).toMatchObject({ logFormat: 'pretty', logLevel: 'info' });
    expect(config([], { LOG_FORMAT: 'JSON', LOG_LEVEL: 'warn' })).toMatchObject({
      logFormat: 'json',
      logLevel: 'warn',
    });
    expect(
      config(['--log-format', 'pretty', '--log-level', 'silent'], { LOG_FORMAT: 'json', LOG_LEVEL: 'debug' }),
    ).toMatchObject({ logFormat: 'pretty', logLevel: 'silent' });
    expect(refusal([], { LOG_FORMAT: 'xml' })).toMatch(/LOG_FORMAT must be one of pretty, json, not "xml"/);
    expect(refusal(['--log-level', 'loud'])).toMatch(
      /--log-level must be one of trace, debug, info, warn, error, fatal, silent, not "loud"/,
    );
  });

  it('takes a callback URL per dashboard setting named by the contract', () => {
    expect(callbackUrlSettings.length).toBeGreaterThan(0);
    const [first, second] = callbackUrlSettings;
    const parsed = config([`--callback-url-${second!.replaceAll('_', '-')}`, 'https://merchant.example/second'], {
      [`SANDBOX_CALLBACK_URL_${first!.toUpperCase()}`]: 'https://merchant.example/first',
    });
    expect(parsed.callbackUrls).toEqual({
      [first!]: 'https://merchant.example/first',
      [second!]: 'https://merchant.example/second',
    });
  });

  it('reads more merchants from SANDBOX_MERCHANTS', () => {
    const merchants = JSON.stringify([
      { id: 'acme', keys: { test: 'sk_test_acme', live: 'sk_live_acme' }, callback_tokens: { test: 't1', live: 't2' } },
    ]);
    const parsed = config([], { SANDBOX_MERCHANTS: merchants });
    expect(parsed.merchants[1]).toEqual({
      id: 'acme',
      ownerId: 'acme',
      keys: { test: 'sk_test_acme', live: 'sk_live_acme' },
      callbackTokens: { test: 't1', live: 't2' },
    });
  });

  it('reads the TLS files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sandbox-config-'));
    writeFileSync(join(dir, 'cert.pem'), '-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n');
    writeFileSync(join(dir, 'key.pem'), '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n');
    const parsed = config(['--tls-cert', 'cert.pem'], { TLS_KEY: join(dir, 'key.pem') }, dir);
    expect(parsed.tls?.cert).toContain('BEGIN CERTIFICATE');
    expect(parsed.tls?.key).toContain('BEGIN PRIVATE KEY');
  });

  it.each([['--help'], ['-h']])('answers %s with the usage, naming every variable', (flag) => {
    const parsed = parseConfig({ argv: [flag], env: {} });
    expect(parsed.kind).toBe('print');
    if (parsed.kind !== 'print') return;
    expect(parsed.text).toContain('--version');
    for (const variable of [
      'PORT',
      'HOST',
      'SANDBOX_SECRET_KEY',
      'SANDBOX_CALLBACK_TOKEN',
      'SANDBOX_CALLBACK_URL',
      'DATA_DIR',
      'TLS_CERT',
      'TLS_KEY',
      'CALLBACK_RETRY_DELAY_MS',
      'SANDBOX_MERCHANTS',
    ])
      expect(parsed.text).toContain(variable);
  });

  it('answers --version with the version of the package it ships in, before reading any other value', () => {
    expect(parseConfig({ argv: ['--version'], env: { PORT: 'not a port' } })).toEqual({
      kind: 'print',
      text: packageVersion(new URL('./config.ts', import.meta.url).href),
    });
  });

  it.each<[string, string[], Record<string, string>, RegExp]>([
    ['an unknown flag', ['--prot', '1'], {}, /Unknown option '--prot'/],
    ['a flag from the prototype', ['--constructor', '1'], {}, /Unknown option '--constructor'/],
    ['a flag without its value', ['--port'], {}, /Option '--port <value>' argument missing/],
    [
      'a flag whose value is the next flag',
      ['--port', '--host', '0.0.0.0'],
      {},
      /Option '--port' argument is ambiguous/,
    ],
    ['a stray argument', ['3000'], {}, /Unexpected argument '3000'/],
    ['a port out of range', [], { PORT: '70000' }, /PORT must be a whole number from 0 to 65535/],
    ['a port that is not a number', ['--port', '3e3'], {}, /--port must be a whole number/],
    [
      'a test key without its prefix',
      [],
      { SANDBOX_SECRET_KEY: 'sk_live_x' },
      /SANDBOX_SECRET_KEY must start with sk_test_/,
    ],
    ['a key with a colon', [], { SANDBOX_SECRET_KEY: 'sk_test_a:b' }, /printable ASCII/],
    ['a live key without its prefix', ['--live-secret-key', 'sk_test_x'], {}, /must start with sk_live_/],
    [
      'a callback URL that is not one',
      [],
      { SANDBOX_CALLBACK_URL: 'merchant.example' },
      /SANDBOX_CALLBACK_URL must be an absolute http\(s\) URL/,
    ],
    [
      'a callback URL of another scheme',
      [],
      { SANDBOX_CALLBACK_URL: 'ftp://merchant.example' },
      /must be an http or https URL/,
    ],
    ['only one TLS file', [], { TLS_CERT: 'cert.pem' }, /TLS_CERT and TLS_KEY .* go together/],
    [
      'unreadable TLS files',
      [],
      { TLS_CERT: '/nonexistent/cert.pem', TLS_KEY: '/nonexistent/key.pem' },
      /TLS_CERT: cannot read/,
    ],
    ['a negative retry delay', [], { CALLBACK_RETRY_DELAY_MS: '-1' }, /CALLBACK_RETRY_DELAY_MS must be a whole number/],
    ['a bad boolean', [], { SANDBOX_VALIDATE_RESPONSES: 'maybe' }, /must be true or false/],
    ['merchants that are not JSON', [], { SANDBOX_MERCHANTS: '[{' }, /SANDBOX_MERCHANTS is not JSON/],
    ['merchants that are not an array', [], { SANDBOX_MERCHANTS: '{}' }, /must be a JSON array/],
    [
      'a merchant without keys',
      [],
      { SANDBOX_MERCHANTS: '[{"id":"m","callback_tokens":{"test":"a","live":"b"}}]' },
      /SANDBOX_MERCHANTS\[0\]\.keys must be an object/,
    ],
    ['a merchant with a bad id', [], { SANDBOX_MERCHANTS: '[{"id":"a b"}]' }, /SANDBOX_MERCHANTS\[0\]\.id/],
    [
      'a merchant with a reserved id',
      [],
      { SANDBOX_MERCHANTS: '[{"id":"__sandbox__"}]' },
      /reserved for the sandbox itself/,
    ],
    [
      'an owner id that is no identifier (it is answered as owner_id)',
      [],
      {
        SANDBOX_MERCHANTS:
          '[{"id":"m","owner_id":"Toko Sejahtera","keys":{"test":"sk_test_m","live":"sk_live_m"},"callback_tokens":{"test":"a","live":"b"}}]',
      },
      /owner_id must be 1-64 letters/,
    ],
    [
      'a callback token over 256 characters',
      [],
      {
        SANDBOX_MERCHANTS: JSON.stringify([
          {
            id: 'm',
            keys: { test: 'sk_test_m', live: 'sk_live_m' },
            callback_tokens: { test: 't'.repeat(257), live: 'b' },
          },
        ]),
      },
      /1-256 characters of printable ASCII/,
    ],
    [
      'a merchant without a token',
      [],
      {
        SANDBOX_MERCHANTS: '[{"id":"m","keys":{"test":"sk_test_m","live":"sk_live_m"},"callback_tokens":{"test":"a"}}]',
      },
      /callback_tokens\.live must be a string/,
    ],
    [
      'a merchant id given twice',
      [],
      {
        SANDBOX_MERCHANTS: JSON.stringify(
          [DEFAULT_MERCHANT_ID].map((id) => ({
            id,
            keys: { test: 'sk_test_m', live: 'sk_live_m' },
            callback_tokens: { test: 'a', live: 'b' },
          })),
        ),
      },
      /merchant id .* is given twice/,
    ],
    [
      'a key shared by two merchants',
      [],
      {
        SANDBOX_MERCHANTS: JSON.stringify([
          {
            id: 'm',
            keys: { test: DEFAULT_TEST_SECRET_KEY, live: 'sk_live_m' },
            callback_tokens: { test: 'a', live: 'b' },
          },
        ]),
      },
      /the test key of merchant m is already another key/,
    ],
  ])('refuses %s with a clear message', (_what, argv, env, message) => {
    expect(refusal(argv, env)).toMatch(message);
  });

  it.each([
    ['SANDBOX_CALLBACK_URL', { SANDBOX_CALLBACK_URL: 'https://merchant:hunter2@merchant.example/cb' }],
    [
      'a per-setting callback URL',
      {
        [`SANDBOX_CALLBACK_URL_${callbackUrlSettings[0]!.toUpperCase()}`]:
          'https://merchant:hunter2@merchant.example/cb',
      },
    ],
  ])('refuses a callback URL with a user name or password in %s, without printing the password', (_where, env) => {
    const message = refusal([], env);
    expect(message).toMatch(/must not carry a user name or password/);
    expect(message).not.toContain('hunter2');
    expect(message).not.toContain('merchant:');
  });

  it('never puts a key in a message', () => {
    const message = refusal([], {
      SANDBOX_MERCHANTS: JSON.stringify([
        {
          id: 'm',
          keys: { test: DEFAULT_TEST_SECRET_KEY, live: 'sk_live_m' },
          callback_tokens: { test: 'a', live: 'b' },
        },
      ]),
    });
    expect(message).not.toContain(DEFAULT_TEST_SECRET_KEY);
  });
});
