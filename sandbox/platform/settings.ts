// The merchant's dashboard configuration per merchant and mode: defaults derived from the contract and the
// merchant id, with the overrides set through the control API stored on top.
//
// Settings are read on the hot path and from inside other modules' transactions (a callback URL is looked
// up while the change it reports is being written). A store read there would queue behind the very
// transaction that waits for it, so every stored override is loaded once at start and kept in memory; the
// store is written through on every change and stays the source of truth after a restart.
import { createHash } from 'node:crypto';
import type { SandboxSettings, Settings } from '../context.js';
import type { CollectionDefinition, Json, Scope, Store } from '../store/store.js';
import type { ContractFacts } from './contract-facts.js';
import { scopeKey } from '../store/scope-key.js';

export const SETTINGS_COLLECTION = 'sandbox_settings';
export const settingsCollections: CollectionDefinition[] = [{ name: SETTINGS_COLLECTION, indexed: ['kind'] }];
const SETTINGS_ID = 'settings';
const SETTINGS_KIND = 'settings';

type Overrides = Partial<SandboxSettings>;
type SettingsRecord = { id: string; kind: string; overrides: Json };

/** One semantic problem of a settings change, located as the router locates a schema violation. */
export interface SettingsIssue {
  path: string;
  message: string;
  keyword: string;
}

/** A change the control API's schema accepts but that does not make sense (unknown bank, range off its prefix). */
export class SettingsValidationError extends Error {
  constructor(readonly issues: SettingsIssue[]) {
    super(`invalid settings: ${issues.map((issue) => `${issue.path} ${issue.message}`).join('; ')}`);
    this.name = 'SettingsValidationError';
  }
}

export interface PlatformSettings extends Settings {
  /** Drops the cached overrides of a scope whose stored data was cleared (reset). */
  forget(scope: Scope): void;
  /** Reads every stored override again (another process sharing the store may have changed or reset them). */
  reload(): Promise<void>;
}

/** Five digits (decision `fva-merchant-code-digits`), stable for a merchant and a bank or outlet. */
function derivedCode(merchantId: string, salt: string): string {
  const digest = createHash('sha256').update(`${merchantId}\n${salt}`).digest();
  return String(10000 + (digest.readUInt32BE(0) % 90000));
}

/** 999999 numbers behind the code: suffixes 000001 to 999999 (000000 is left out, as banks do). */
const rangeBehind = (code: string) => ({ from: `${code}000001`, to: `${code}999999` });

export function defaultSettings(
  scope: Scope,
  facts: ContractFacts,
  defaultCallbackUrl: string | null,
  perSetting: Readonly<Record<string, string>> = {},
  autoProgress = true,
  rateLimits = true,
): SandboxSettings {
  return {
    virtual_account_number_range: Object.fromEntries(
      facts.virtualAccountBanks.map((bank) => {
        const merchantCode = derivedCode(scope.merchantId, `fva:${bank}`);
        return [bank, { merchant_code: merchantCode, ...rangeBehind(merchantCode) }];
      }),
    ),
    virtual_account_bank_activation: [...facts.virtualAccountBanks],
    closed_virtual_accounts_enabled: true,
    expiration_date_enabled: true,
    payment_code_range: Object.fromEntries(
      facts.retailOutlets.map((outlet) => {
        const prefix = derivedCode(scope.merchantId, `fpc:${outlet}`);
        return [outlet, { prefix, ...rangeBehind(prefix) }];
      }),
    ),
    default_disbursement_description: null,
    ewallet_auto_resolve: true,
    disbursement_auto_resolve: autoProgress,
    direct_debit_auto_resolve: autoProgress,
    rate_limits_enabled: rateLimits,
    callback_urls: Object.fromEntries(
      facts.callbackSettings.map((setting) => [setting, perSetting[setting] ?? defaultCallbackUrl]),
    ),
  };
}

type Range = { from: string; to: string };
const rangesOf = <R extends Range>(ranges: Record<string, R>, own: (range: R) => R): Record<string, R> =>
  Object.fromEntries(Object.entries(ranges).map(([name, range]) => [name, own(range)]));
const same = <T>(value: T): T => value;

/**
 * Per setting, what of a given value is kept: a range only its three fields. A setting added to
 * SandboxSettings fails to compile here until it says what it keeps.
 */
const KEEP: { [K in keyof SandboxSettings]: (value: SandboxSettings[K]) => SandboxSettings[K] } = {
  virtual_account_number_range: (ranges) =>
    rangesOf(ranges, ({ merchant_code, from, to }) => ({ merchant_code, from, to })),
  virtual_account_bank_activation: same,
  closed_virtual_accounts_enabled: same,
  expiration_date_enabled: same,
  payment_code_range: (ranges) => rangesOf(ranges, ({ prefix, from, to }) => ({ prefix, from, to })),
  default_disbursement_description: same,
  ewallet_auto_resolve: same,
  disbursement_auto_resolve: same,
  direct_debit_auto_resolve: same,
  rate_limits_enabled: same,
  callback_urls: same,
};

/**
 * Only the settings the contract describes: unknown fields, as in every request of the contract, are
 * ignored, so they are neither stored nor echoed (a settings record cannot grow with what a client adds).
 */
export function knownChanges(given: Overrides): Overrides {
  const kept: Overrides = {};
  const keep = <K extends keyof SandboxSettings>(key: K): void => {
    const value: SandboxSettings[K] | undefined = given[key];
    const own: (value: SandboxSettings[K]) => SandboxSettings[K] = KEEP[key];
    if (value !== undefined) (kept as Pick<SandboxSettings, K>)[key] = own(value);
  };
  for (const key of Object.keys(KEEP) as (keyof SandboxSettings)[]) keep(key);
  return kept;
}

/** Maps are merged key by key; every other field is replaced. */
function merge(base: SandboxSettings, changes: Overrides): SandboxSettings {
  return {
    ...base,
    ...changes,
    virtual_account_number_range: { ...base.virtual_account_number_range, ...changes.virtual_account_number_range },
    payment_code_range: { ...base.payment_code_range, ...changes.payment_code_range },
    callback_urls: { ...base.callback_urls, ...changes.callback_urls },
  };
}

function mergeOverrides(base: Overrides, given: Overrides): Overrides {
  // A field present but undefined means "not given", not "set to undefined".
  const changes = Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Overrides;
  const merged: Overrides = { ...base, ...changes };
  if (base.virtual_account_number_range || changes.virtual_account_number_range) {
    merged.virtual_account_number_range = {
      ...base.virtual_account_number_range,
      ...changes.virtual_account_number_range,
    };
  }
  if (base.payment_code_range || changes.payment_code_range)
    merged.payment_code_range = { ...base.payment_code_range, ...changes.payment_code_range };
  if (base.callback_urls || changes.callback_urls)
    merged.callback_urls = { ...base.callback_urls, ...changes.callback_urls };
  return merged;
}

function checkRange(
  issues: SettingsIssue[],
  path: string,
  prefixField: string,
  prefix: string,
  from: string,
  to: string,
): void {
  for (const [field, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (!/^[0-9]+$/.test(value))
      issues.push({ path: `${path}/${field}`, message: 'must be a string of digits', keyword: 'pattern' });
    else if (!value.startsWith(prefix) || value.length <= prefix.length) {
      issues.push({
        path: `${path}/${field}`,
        message: `must start with the ${prefixField} ${prefix} and continue after it`,
        keyword: 'pattern',
      });
    }
  }
  if (from.length !== to.length)
    issues.push({ path: `${path}/to`, message: 'must have as many digits as from', keyword: 'minLength' });
  else if (/^[0-9]+$/.test(from) && /^[0-9]+$/.test(to) && BigInt(from) > BigInt(to))
    issues.push({ path: `${path}/to`, message: 'must not be below from', keyword: 'minimum' });
}

/** What the schema cannot say: names the contract knows, ranges that fit their prefix. */
export function settingsIssues(changes: Overrides, facts: ContractFacts): SettingsIssue[] {
  const issues: SettingsIssue[] = [];
  const banks = facts.virtualAccountBanks;
  for (const [bank, range] of Object.entries(changes.virtual_account_number_range ?? {})) {
    const path = `/virtual_account_number_range/${bank}`;
    if (!banks.includes(bank))
      issues.push({ path, message: `must be a bank of the contract: ${banks.join(', ')}`, keyword: 'propertyNames' });
    if (!/^[0-9]{5}$/.test(range.merchant_code))
      issues.push({ path: `${path}/merchant_code`, message: 'must be 5 digits', keyword: 'pattern' });
    checkRange(issues, path, 'merchant_code', range.merchant_code, range.from, range.to);
  }
  (changes.virtual_account_bank_activation ?? []).forEach((bank, index) => {
    if (!banks.includes(bank))
      issues.push({
        path: `/virtual_account_bank_activation/${index}`,
        message: `must be a bank of the contract: ${banks.join(', ')}`,
        keyword: 'enum',
      });
  });
  const outlets = facts.retailOutlets;
  for (const [outlet, range] of Object.entries(changes.payment_code_range ?? {})) {
    const path = `/payment_code_range/${outlet}`;
    if (!outlets.includes(outlet))
      issues.push({
        path,
        message: `must be a retail outlet of the contract: ${outlets.join(', ')}`,
        keyword: 'propertyNames',
      });
    if (!/^[0-9]{3,6}$/.test(range.prefix))
      issues.push({ path: `${path}/prefix`, message: 'must be 3 to 6 digits', keyword: 'pattern' });
    checkRange(issues, path, 'prefix', range.prefix, range.from, range.to);
  }
  for (const [setting, url] of Object.entries(changes.callback_urls ?? {})) {
    const path = `/callback_urls/${setting}`;
    if (!facts.callbackSettings.includes(setting))
      issues.push({
        path,
        message: `must be a callback setting of the contract: ${facts.callbackSettings.join(', ')}`,
        keyword: 'propertyNames',
      });
    else if (url !== null && !URL.canParse(url))
      issues.push({ path, message: 'must be an absolute URL', keyword: 'format' });
  }
  if (changes.default_disbursement_description === '')
    issues.push({
      path: '/default_disbursement_description',
      message: 'must NOT have fewer than 1 characters',
      keyword: 'minLength',
    });
  return issues;
}

export interface SettingsOptions {
  store: Store;
  facts: ContractFacts;
  defaultCallbackUrl: string | null;
  /** Per dashboard setting, a default URL that replaces `defaultCallbackUrl` for that setting. */
  defaultCallbackUrls?: Readonly<Record<string, string>>;
  /** SANDBOX_AUTO_PROGRESS: the default of the settings that let objects finish after the delay (default true). */
  autoProgress?: boolean;
  /** SANDBOX_RATE_LIMITS: the default of `rate_limits_enabled` (default true). */
  rateLimits?: boolean;
  /** Told after a change is committed, or a reset forgotten (other sandboxes keep copies of the settings). */
  onChange?: () => void;
}

export async function createSettings(options: SettingsOptions): Promise<PlatformSettings> {
  const { store, facts, defaultCallbackUrl } = options;
  const perSetting = options.defaultCallbackUrls ?? {};
  const changed = options.onChange ?? (() => undefined);
  const unknown = Object.keys(perSetting).filter((setting) => !facts.callbackSettings.includes(setting));
  if (unknown.length > 0)
    throw new Error(
      `not callback settings of the contract: ${unknown.join(', ')} (known: ${facts.callbackSettings.join(', ')})`,
    );
  let overrides = new Map<string, Overrides>();
  // Each scope's settings merged once, until they change: read on every request (the rate limit's switch).
  const merged = new Map<string, SandboxSettings>();
  // Each scope's merged settings as JSON text, until they change: `get` answers a copy parsed from it, so a
  // caller changing what it was given cannot change the cached settings. Settings are JSON values; on Node 20
  // structuredClone goes through the messaging machinery and cost several times the parse, on every creation.
  const texts = new Map<string, string>();
  const reload = async (): Promise<void> => {
    const loaded = new Map<string, Overrides>();
    for (const { scope, record } of await store.findAcrossScopes<SettingsRecord>(
      SETTINGS_COLLECTION,
      'kind',
      SETTINGS_KIND,
    )) {
      // Written by `update` below from an `Overrides` value; JSON keeps its shape.
      // Kept to the known settings: a record written before unknown fields were dropped may hold others.
      loaded.set(scopeKey(scope), knownChanges(record.overrides as unknown as Overrides));
    }
    // Replaced whole: a scope reset elsewhere has no record any more.
    overrides = loaded;
    merged.clear();
    texts.clear();
  };
  await reload();
  const defaults = new Map<string, SandboxSettings>();
  const defaultsOf = (scope: Scope): SandboxSettings => {
    const key = scopeKey(scope);
    let found = defaults.get(key);
    if (!found)
      defaults.set(
        key,
        (found = defaultSettings(
          scope,
          facts,
          defaultCallbackUrl,
          perSetting,
          options.autoProgress ?? true,
          options.rateLimits ?? true,
        )),
      );
    return found;
  };
  const settingsOf = (scope: Scope): SandboxSettings => {
    const key = scopeKey(scope);
    let found = merged.get(key);
    if (!found) merged.set(key, (found = merge(defaultsOf(scope), overrides.get(key) ?? {})));
    return found;
  };
  const current = (scope: Scope): SandboxSettings => {
    const key = scopeKey(scope);
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = JSON.stringify(settingsOf(scope))));
    return JSON.parse(text) as SandboxSettings;
  };

  return {
    get: async (scope) => current(scope),
    peek: (scope) => settingsOf(scope),
    update: async (scope, given) => {
      const changes = knownChanges(given);
      const issues = settingsIssues(changes, facts);
      if (issues.length > 0) throw new SettingsValidationError(issues);
      const updated = await store.transaction(async (tx) => {
        const stored = await tx.get<SettingsRecord>(SETTINGS_COLLECTION, scope, SETTINGS_ID);
        const next = mergeOverrides(stored ? knownChanges(stored.overrides as unknown as Overrides) : {}, changes);
        // Overrides hold only JSON values (strings, booleans, null, maps and lists of them).
        const record: SettingsRecord = { id: SETTINGS_ID, kind: SETTINGS_KIND, overrides: next as unknown as Json };
        if (stored) await tx.update(SETTINGS_COLLECTION, scope, record);
        else await tx.insert(SETTINGS_COLLECTION, scope, record);
        return next;
      });
      overrides.set(scopeKey(scope), updated);
      merged.delete(scopeKey(scope));
      texts.delete(scopeKey(scope));
      changed();
      return current(scope);
    },
    forget: (scope) => {
      overrides.delete(scopeKey(scope));
      merged.delete(scopeKey(scope));
      texts.delete(scopeKey(scope));
      changed();
    },
    reload,
  };
}
