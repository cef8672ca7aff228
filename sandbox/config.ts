// The sandbox's configuration: environment variables, each with a matching command-line flag (flags win).
// Flag names follow one rule, so nobody has to look them up: the variable's name without `SANDBOX_`, in
// lower case, `_` -> `-` (PORT -> --port, SANDBOX_SECRET_KEY -> --secret-key, DATA_DIR -> --data-dir).
// Everything is checked here, before anything starts, so a bad value is one clear message (exit 2), not a
// failure halfway through start-up.
import { readFileSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import {
  parseCommandLine,
  STANDARD_USAGE_LINES,
  UsageError,
  type Command,
} from '@payments-contract/server/runtime/command-line';
import { webhookMetadata } from '@payments-contract/client/webhooks';
import { maskUrlCredentials } from './callbacks/mask-credentials.js';
import type { Mode } from './context.js';
import { DEFAULT_DEADLINES, type Deadlines } from './deadlines.js';
import { splitHost } from './host-names.js';
import { LOG_FORMATS, LOG_LEVELS, type LogFormat, type LogLevel } from './observability/logger.js';
import { DEFAULT_AUTO_PROGRESS_DELAY_MS } from './platform/auto-resolve.js';
import type { DatabaseSettings, OptionReader } from './store/backend.js';
import { STORE_BACKENDS } from './store/backends.js';
import { STORE_CHOICES, type StoreChoice } from './store/open-store.js';

export interface MerchantConfig {
  /** The merchant's id: what scopes its data. */
  id: string;
  /** Echoed as owner_id / user_id / business_id in its objects. */
  ownerId: string;
  keys: Record<Mode, string>;
  callbackTokens: Record<Mode, string>;
}

export interface TlsConfig {
  cert: string;
  key: string;
  /** Where they were read from, for the start-up message. */
  certPath: string;
  keyPath: string;
}

export type DatabaseConfig = DatabaseSettings;

export interface SandboxConfig {
  port: number;
  host: string;
  /** PUBLIC_HOST: host names (`name` or `name:port`) requests may give in Host besides localhost, 127.0.0.1, [::1] and HOST. */
  publicHosts: readonly string[];
  /** How long a TLS handshake, a request head and a whole request may take. */
  deadlines: Deadlines;
  /** The default merchant first, then SANDBOX_MERCHANTS. */
  merchants: MerchantConfig[];
  /** Where every dashboard-configured callback goes unless a per-kind URL says otherwise; null: none. */
  callbackUrl: string | null;
  /** Per dashboard setting (`x-delivery.destination.dashboard_setting`), overriding callbackUrl. */
  callbackUrls: Record<string, string>;
  /** A directory for the embedded store, or `:memory:`. */
  dataDir: string;
  /** Which store keeps the data: an embedded one in dataDir, or PostgreSQL (`database`). */
  store: StoreChoice;
  /** STORE=postgres: where the database is and how this process uses it. */
  database: DatabaseConfig;
  tls: TlsConfig | null;
  callbackRetryDelayMs: number;
  /** Sandbox milliseconds after which disbursements and direct debit payments finish by themselves. */
  autoProgressDelayMs: number;
  /** The default of the settings that let disbursements and direct debits finish by themselves. */
  autoProgress: boolean;
  /** SANDBOX_RATE_LIMITS: whether keys are held to the contract's rate limits by default (each merchant can change it). */
  rateLimits: boolean;
  /** Check every answer against the contract (an answer off the contract becomes a logged 500). */
  validateResponses: boolean;
  /** The log on stdout: short human lines, or JSON lines. */
  logFormat: LogFormat;
  /** The least severe level logged (`warn` leaves out the line per request). */
  logLevel: LogLevel;
  /** Which values the operator gave (so start-up prints only the defaults' secrets in full). */
  given: ReadonlySet<OptionName>;
}

/** The default merchant: the id its objects carry in the contract's examples. */
export const DEFAULT_MERCHANT_ID = '5ed75086a883856178afc12e';
/** Fixed development keys, so a restarted sandbox (and the docs' examples) keep working with the same key. */
export const DEFAULT_TEST_SECRET_KEY = 'sk_test_sandbox_5ed75086a883856178afc12e';
export const DEFAULT_LIVE_SECRET_KEY = 'sk_live_sandbox_5ed75086a883856178afc12e';
export const DEFAULT_TEST_CALLBACK_TOKEN = 'cbt_test_sandbox_5ed75086a883856178afc12e';
export const DEFAULT_LIVE_CALLBACK_TOKEN = 'cbt_live_sandbox_5ed75086a883856178afc12e';
export const DEFAULT_DATA_DIR = '.sandbox-data';
export const TEST_KEY_PREFIX = 'sk_test_';
export const LIVE_KEY_PREFIX = 'sk_live_';

/** Every dashboard setting that names a callback URL, read from the contract's webhooks. */
export const callbackUrlSettings: readonly string[] = [
  ...new Set(
    Object.values(webhookMetadata).flatMap((webhook) => {
      const { destination } = webhook.delivery;
      return 'dashboard_setting' in destination ? [destination.dashboard_setting] : [];
    }),
  ),
].sort();

/**
 * The contract's retry spacing. Decision `callback-retry-all-kinds` gives every webhook the same policy; the
 * outbox takes one delay, so a contract that ever gives kinds different spacings must fail loudly here.
 */
export function contractRetryDelayMs(): number {
  const spacings = new Set(Object.values(webhookMetadata).map((webhook) => webhook.delivery.retry_interval_seconds));
  if (spacings.size !== 1)
    throw new Error(
      `the contract's webhooks have different retry intervals (${[...spacings].join(', ')} s); the sandbox needs one`,
    );
  return [...spacings][0]! * 1000;
}

interface OptionSpec {
  env: string;
  description: string;
  /** Takes a value (all but the switches do). */
  boolean?: boolean;
}

const perKindOptions = Object.fromEntries(
  callbackUrlSettings.map((setting) => [
    `callback-url-${setting.replaceAll('_', '-')}`,
    {
      env: `SANDBOX_CALLBACK_URL_${setting.toUpperCase()}`,
      description: `URL for ${setting} (default: --callback-url)`,
    },
  ]),
) as Record<string, OptionSpec>;

/** The options of each store backend (store/backends.ts), each said to be that backend's. */
const storeOptions = Object.fromEntries(
  STORE_BACKENDS.flatMap((backend) =>
    Object.entries(backend.options).map(([name, option]) => [
      name,
      { ...option, description: `STORE=${backend.name}: ${option.description}` },
    ]),
  ),
) as Record<string, OptionSpec>;

export const OPTIONS = {
  port: { env: 'PORT', description: 'port to listen on (default 3000; 0 picks a free one)' },
  host: { env: 'HOST', description: 'address to listen on (default 127.0.0.1)' },
  'public-host': {
    env: 'PUBLIC_HOST',
    description:
      'comma-separated host names clients use (name or name:port), answered besides localhost, 127.0.0.1, [::1] and HOST; a request naming another host in Host is refused 421',
  },
  'headers-timeout-ms': {
    env: 'HEADERS_TIMEOUT_MS',
    description: `a request head must arrive within this from the connection's start, over HTTP and HTTPS, or is answered 408 (default ${DEFAULT_DEADLINES.headersMs})`,
  },
  'request-timeout-ms': {
    env: 'REQUEST_TIMEOUT_MS',
    description: `a whole request must arrive within this, or is answered 408 (default ${DEFAULT_DEADLINES.requestMs})`,
  },
  'tls-handshake-timeout-ms': {
    env: 'TLS_HANDSHAKE_TIMEOUT_MS',
    description: `with TLS: a connection's first byte, and then its handshake, must come within this, or it is closed (default ${DEFAULT_DEADLINES.handshakeMs})`,
  },
  'secret-key': {
    env: 'SANDBOX_SECRET_KEY',
    description: `the default merchant's test key (starts with ${TEST_KEY_PREFIX}; default: a fixed development key, printed)`,
  },
  'live-secret-key': {
    env: 'SANDBOX_LIVE_SECRET_KEY',
    description: `the default merchant's live key (starts with ${LIVE_KEY_PREFIX}; default: a fixed development key, printed)`,
  },
  'callback-token': {
    env: 'SANDBOX_CALLBACK_TOKEN',
    description: "the default merchant's test-mode callback token (x-callback-token)",
  },
  'live-callback-token': {
    env: 'SANDBOX_LIVE_CALLBACK_TOKEN',
    description: "the default merchant's live-mode callback token",
  },
  'callback-url': {
    env: 'SANDBOX_CALLBACK_URL',
    description: "the merchant's callback URL for every dashboard-configured callback",
  },
  ...perKindOptions,
  merchants: {
    env: 'SANDBOX_MERCHANTS',
    description:
      'JSON array of more merchants: [{"id","keys":{"test","live"},"callback_tokens":{"test","live"},"owner_id"?}]',
  },
  'data-dir': {
    env: 'DATA_DIR',
    description: `directory of the embedded store (default ./${DEFAULT_DATA_DIR}; :memory: keeps nothing)`,
  },
  store: {
    env: 'STORE',
    description: `${STORE_CHOICES.join('|')}: where the data is kept (default ${STORE_BACKENDS.map((backend) => `${backend.name}: ${backend.summary}`).join('; ')})`,
  },
  ...storeOptions,
  'tls-cert': {
    env: 'TLS_CERT',
    description: 'PEM certificate file: serve HTTPS (with --tls-key); plain HTTP is then refused',
  },
  'tls-key': { env: 'TLS_KEY', description: 'PEM private key file for --tls-cert' },
  'callback-retry-delay-ms': {
    env: 'CALLBACK_RETRY_DELAY_MS',
    description: "spacing of callback attempts (default: the contract's retry_interval_seconds)",
  },
  'auto-progress': {
    env: 'SANDBOX_AUTO_PROGRESS',
    description:
      'true|false: whether disbursements and direct debits finish by themselves after the delay (default true; each merchant can change it)',
  },
  'auto-progress-delay-ms': {
    env: 'SANDBOX_AUTO_PROGRESS_DELAY_MS',
    description: 'sandbox milliseconds after which disbursements and direct debits finish by themselves (default 3000)',
  },
  'rate-limits': {
    env: 'SANDBOX_RATE_LIMITS',
    description:
      "true|false: whether each key is held to the contract's rate limits, answered 429 past them (default true; each merchant can change it)",
  },
  'validate-responses': {
    env: 'SANDBOX_VALIDATE_RESPONSES',
    description: 'true|false: check every answer against the contract (default true)',
  },
  'log-format': {
    env: 'LOG_FORMAT',
    description: `${LOG_FORMATS.join('|')}: a line per request and per callback attempt on stdout, for people (default pretty) or as JSON lines`,
  },
  'log-level': {
    env: 'LOG_LEVEL',
    description: `${LOG_LEVELS.join('|')}: the least severe line logged (default info; warn leaves out the line per request)`,
  },
} as const satisfies Record<string, OptionSpec>;

/** A flag name without its dashes (the per-kind callback URL flags are made from the contract, hence string). */
export type OptionName = string;

export class ConfigError extends UsageError {
  override name = 'ConfigError';
}

export function usage(): string {
  const width = Math.max(...Object.keys(OPTIONS).map((name) => name.length)) + 2;
  // Columns as wide as their longest entry plus a gap, so a long variable never runs into its description.
  const envWidth = Math.max(...Object.values(OPTIONS).map((spec: OptionSpec) => spec.env.length)) + 2;
  const lines = Object.entries(OPTIONS).map(
    ([name, spec]: [string, OptionSpec]) => `  --${name.padEnd(width)}${spec.env.padEnd(envWidth)}${spec.description}`,
  );
  return `Usage: npm start -- [options]   (or: payments-sandbox [options])

Serves the Payments API in test mode, its docs at /docs and the control API at /sandbox.
Every option is also an environment variable; a flag wins over its variable. Give keys, tokens and
SANDBOX_MERCHANTS as variables: a command line shows in \`ps\` to every user of the machine.

  ${'flag'.padEnd(width + 2)}${'variable'.padEnd(envWidth)}meaning
${lines.join('\n')}
${STANDARD_USAGE_LINES}

With a sandbox running, from another terminal (each has its own --help):
  payments-sandbox listen --forward-to URL                              bring the callbacks to a local URL
  payments-sandbox trigger KIND [--set field=value ...] [--fail CODE]   fire one callback of KIND
  payments-sandbox events resend ID                                     send a recorded callback again

Example: PORT=3001 SANDBOX_CALLBACK_URL=http://127.0.0.1:8787/callbacks npm start -- --data-dir :memory:`;
}

/** The command line: every option takes a value (`--name value` or `--name=value`). */
export const COMMAND = {
  name: 'payments-sandbox',
  usage: usage(),
  options: Object.fromEntries(Object.keys(OPTIONS).map((name) => [name, { type: 'string' }])) as Record<
    OptionName,
    { type: 'string' }
  >,
  module: import.meta.url,
} satisfies Command<Record<OptionName, { type: 'string' }>>;

function integer(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max)
    throw new ConfigError(`${name} must be a whole number from ${min} to ${max}, not ${JSON.stringify(raw)}`);
  return value;
}

function url(name: string, raw: string): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL, not ${JSON.stringify(raw)}`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new ConfigError(`${name} must be an http or https URL, not ${JSON.stringify(raw)}`);
  // Decision `callback-url-without-credentials`; the message leaves the credentials out, as every log must.
  if (parsed.username !== '' || parsed.password !== '')
    throw new ConfigError(
      `${name} must not carry a user name or password (callbacks are authenticated by x-callback-token), not ${maskUrlCredentials(raw)}`,
    );
  return raw;
}

/** PUBLIC_HOST: names as a Host header gives them, with or without a port. */
function hostNames(name: string, raw: string): string[] {
  const names = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of names)
    if (!splitHost(entry))
      throw new ConfigError(
        `${name} must list host names as a Host header gives them (name or name:port, an IPv6 address in brackets), not ${JSON.stringify(entry)}`,
      );
  return names;
}

function key(name: string, raw: string, mode: Mode): string {
  const prefix = mode === 'test' ? TEST_KEY_PREFIX : LIVE_KEY_PREFIX;
  // The contract: "Test keys start with sk_test_". Live keys get their own prefix so a key's mode shows at a glance.
  if (!raw.startsWith(prefix) || raw.length <= prefix.length)
    throw new ConfigError(`${name} must start with ${prefix} and go on after it`);
  // The key travels as the user name of HTTP Basic: no colon (it ends the user name) and no control characters.
  if (!/^[\x21-\x39\x3b-\x7e]+$/.test(raw))
    throw new ConfigError(`${name} may hold printable ASCII characters other than ':' and spaces only`);
  return raw;
}

function token(name: string, raw: string): string {
  if (!/^[\x20-\x7e]{1,256}$/.test(raw))
    throw new ConfigError(
      `${name} must be 1-256 characters of printable ASCII (it travels in the x-callback-token header)`,
    );
  return raw;
}

/** One of `allowed`, as written or in any case. */
function oneOf<T extends string>(allowed: readonly T[]): (name: string, raw: string) => T {
  return (name, raw) => {
    const found = allowed.find((value) => value === raw.trim().toLowerCase());
    if (!found) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, not ${JSON.stringify(raw)}`);
    return found;
  };
}

function boolean(name: string, raw: string): boolean {
  const value = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(value)) return true;
  if (['0', 'false', 'no', 'off'].includes(value)) return false;
  throw new ConfigError(`${name} must be true or false, not ${JSON.stringify(raw)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pair(
  where: string,
  value: unknown,
  check: (name: string, raw: string, mode: Mode) => string,
): Record<Mode, string> {
  if (!isObject(value)) throw new ConfigError(`${where} must be an object with "test" and "live"`);
  const result = {} as Record<Mode, string>;
  for (const mode of ['test', 'live'] as const) {
    const raw = value[mode];
    if (typeof raw !== 'string') throw new ConfigError(`${where}.${mode} must be a string`);
    result[mode] = check(`${where}.${mode}`, raw, mode);
  }
  return result;
}

/** Merchant and owner ids: identifiers as the contract bounds them (decision string-bounds-identifiers). */
const IDENTIFIER = /^[A-Za-z0-9_-]{1,64}$/;

function parseMerchants(name: string, raw: string): MerchantConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ConfigError(`${name} is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${name} must be a JSON array of merchants`);
  return parsed.map((entry: unknown, index) => {
    const where = `${name}[${index}]`;
    if (!isObject(entry)) throw new ConfigError(`${where} must be an object`);
    const { id, owner_id: ownerId } = entry;
    if (typeof id !== 'string' || !IDENTIFIER.test(id))
      throw new ConfigError(`${where}.id must be 1-64 letters, digits, '_' or '-'`);
    // Ids starting with `__` scope the sandbox's own records (its clock), which no key may reach.
    if (id.startsWith('__'))
      throw new ConfigError(`${where}.id must not start with '__' (reserved for the sandbox itself)`);
    // Answered as owner_id, user_id and business_id, which the contract bounds as identifiers.
    if (ownerId !== undefined && (typeof ownerId !== 'string' || !IDENTIFIER.test(ownerId)))
      throw new ConfigError(`${where}.owner_id must be 1-64 letters, digits, '_' or '-'`);
    return {
      id,
      ownerId: ownerId ?? id,
      keys: pair(`${where}.keys`, entry.keys, key),
      callbackTokens: pair(`${where}.callback_tokens`, entry.callback_tokens, token),
    };
  });
}

function readPem(name: string, path: string, cwd: string): string {
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  let text: string;
  try {
    text = readFileSync(full, 'utf8');
  } catch (error) {
    throw new ConfigError(`${name}: cannot read ${full} (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!text.includes('-----BEGIN ')) throw new ConfigError(`${name}: ${full} is not a PEM file`);
  return text;
}

export interface ConfigSource {
  argv?: readonly string[];
  env?: Readonly<Record<string, string | undefined>>;
  /** Relative paths (DATA_DIR, TLS files) are resolved against it. */
  cwd?: string;
}

/** The configuration, or the text --help or --version asks to print. */
export type ParsedConfig = { kind: 'config'; config: SandboxConfig } | { kind: 'print'; text: string };

/**
 * The configuration from flags and environment; throws a UsageError with a message for the operator (a
 * ConfigError for a value it cannot use).
 */
export function parseConfig(source: ConfigSource = {}): ParsedConfig {
  const env = source.env ?? process.env;
  const cwd = source.cwd ?? process.cwd();
  const line = parseCommandLine(COMMAND, source.argv ?? []);
  if (line.kind === 'print') return line;
  const flags = line.values;

  const given = new Set<OptionName>();
  // A flag wins over its variable; an empty variable counts as unset (a blank `FOO=` in a .env file).
  const read = (name: OptionName): { label: string; value: string } | undefined => {
    const spec: OptionSpec = (OPTIONS as Record<string, OptionSpec>)[name]!;
    const flag = flags[name];
    if (typeof flag === 'string') {
      given.add(name);
      return { label: `--${name}`, value: flag };
    }
    const variable = env[spec.env];
    if (variable === undefined || variable === '') return undefined;
    given.add(name);
    return { label: spec.env, value: variable };
  };
  const get = <T>(name: OptionName, parse: (label: string, value: string) => T, fallback: T): T => {
    const found = read(name);
    return found ? parse(found.label, found.value) : fallback;
  };

  const port = get('port', (label, value) => integer(label, value, 0, 65535), 3000);
  const host = get('host', (_label, value) => value.trim(), '127.0.0.1');
  const publicHosts = get('public-host', hostNames, []);
  const timeout = (name: OptionName, fallback: number): number =>
    get(name, (label, value) => integer(label, value, 100, 24 * 60 * 60 * 1000), fallback);
  const deadlines: Deadlines = {
    headersMs: timeout('headers-timeout-ms', DEFAULT_DEADLINES.headersMs),
    requestMs: timeout('request-timeout-ms', DEFAULT_DEADLINES.requestMs),
    handshakeMs: timeout('tls-handshake-timeout-ms', DEFAULT_DEADLINES.handshakeMs),
  };
  // Node refuses a head deadline past the request's (the head is part of the request).
  if (deadlines.headersMs > deadlines.requestMs)
    throw new ConfigError(
      'HEADERS_TIMEOUT_MS (--headers-timeout-ms) must not be longer than REQUEST_TIMEOUT_MS (--request-timeout-ms)',
    );
  const testKey = get('secret-key', (label, value) => key(label, value, 'test'), DEFAULT_TEST_SECRET_KEY);
  const liveKey = get('live-secret-key', (label, value) => key(label, value, 'live'), DEFAULT_LIVE_SECRET_KEY);
  const testToken = get('callback-token', token, DEFAULT_TEST_CALLBACK_TOKEN);
  const liveToken = get('live-callback-token', token, DEFAULT_LIVE_CALLBACK_TOKEN);
  const callbackUrl = get<string | null>('callback-url', url, null);
  const callbackUrls: Record<string, string> = {};
  for (const setting of callbackUrlSettings) {
    const value = get<string | null>(`callback-url-${setting.replaceAll('_', '-')}`, url, null);
    if (value !== null) callbackUrls[setting] = value;
  }
  const more = get('merchants', parseMerchants, []);
  const dataDirRaw = get('data-dir', (_label, value) => value, DEFAULT_DATA_DIR);
  const dataDir = dataDirRaw === ':memory:' ? dataDirRaw : resolve(cwd, dataDirRaw);
  const store = get<StoreChoice>('store', oneOf(STORE_CHOICES), STORE_CHOICES[0]!);
  // Each backend reads its own options (store/backends.ts); the one that keeps a database says where it is.
  const reader: OptionReader = {
    get,
    integer,
    refuse: (message) => {
      throw new ConfigError(message);
    },
  };
  const database: DatabaseConfig | undefined = STORE_BACKENDS.map((backend) =>
    'settings' in backend ? backend.settings(reader).database : undefined,
  ).find((settings) => settings !== undefined);
  if (!database) throw new Error('no store backend reads the database settings');
  const certPath = read('tls-cert');
  const keyPath = read('tls-key');
  if ((certPath === undefined) !== (keyPath === undefined))
    throw new ConfigError('TLS_CERT and TLS_KEY (--tls-cert, --tls-key) go together: give both or neither');
  const tls =
    certPath && keyPath
      ? {
          cert: readPem(certPath.label, certPath.value, cwd),
          key: readPem(keyPath.label, keyPath.value, cwd),
          certPath: certPath.value,
          keyPath: keyPath.value,
        }
      : null;
  const callbackRetryDelayMs = get(
    'callback-retry-delay-ms',
    (label, value) => integer(label, value, 0, 24 * 60 * 60 * 1000),
    contractRetryDelayMs(),
  );
  const validateResponses = get('validate-responses', boolean, true);
  const autoProgress = get('auto-progress', boolean, true);
  const rateLimits = get('rate-limits', boolean, true);
  const autoProgressDelayMs = get(
    'auto-progress-delay-ms',
    (label, value) => integer(label, value, 0, 24 * 60 * 60 * 1000),
    DEFAULT_AUTO_PROGRESS_DELAY_MS,
  );
  const logFormat = get('log-format', oneOf(LOG_FORMATS), 'pretty');
  const logLevel = get('log-level', oneOf(LOG_LEVELS), 'info');

  const merchants: MerchantConfig[] = [
    {
      id: DEFAULT_MERCHANT_ID,
      ownerId: DEFAULT_MERCHANT_ID,
      keys: { test: testKey, live: liveKey },
      callbackTokens: { test: testToken, live: liveToken },
    },
    ...more,
  ];
  checkDistinct(merchants);
  return {
    kind: 'config',
    config: {
      port,
      host,
      publicHosts,
      deadlines,
      merchants,
      callbackUrl,
      callbackUrls,
      dataDir,
      store,
      database,
      tls,
      callbackRetryDelayMs,
      autoProgressDelayMs,
      autoProgress,
      rateLimits,
      validateResponses,
      logFormat,
      logLevel,
      given,
    },
  };
}

/** Merchant ids and keys must each name one thing: a key shared by two merchants would leak data between them. */
function checkDistinct(merchants: readonly MerchantConfig[]): void {
  const ids = new Set<string>();
  const keys = new Set<string>();
  for (const merchant of merchants) {
    if (ids.has(merchant.id)) throw new ConfigError(`merchant id ${merchant.id} is given twice`);
    ids.add(merchant.id);
    for (const mode of ['test', 'live'] as const) {
      // The message names the merchant, never the key.
      if (keys.has(merchant.keys[mode]))
        throw new ConfigError(`the ${mode} key of merchant ${merchant.id} is already another key`);
      keys.add(merchant.keys[mode]);
    }
  }
}

/** Defaults for everything, for tests and tools that build a config in code. */
export function defaultConfig(overrides: Partial<SandboxConfig> = {}): SandboxConfig {
  const parsed = parseConfig({ argv: [], env: {} });
  if (parsed.kind !== 'config') throw new Error('unreachable: no --help or --version given');
  return { ...parsed.config, ...overrides };
}
