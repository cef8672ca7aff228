// The hostile requests, derived from the contracts: every operation (its method, path, parameters and
// request schema, read from the bundled documents) crossed with the hostile material of hostile-values.ts,
// each with and without a valid key. A case is built lazily (some are a mebibyte), and carries what its
// answer is judged against (judge.ts): the operation it reaches, or none when its path or method is bent.
import { randomUUID } from 'node:crypto';
import { isObject } from '@payments-contract/contract/model';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_MAX_BODY_BYTES } from '@payments-contract/server/runtime/router';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import {
  buildRequest,
  type Contract,
  freshBody,
  isIdempotencyHeader,
  ScenarioSkipped,
  schemaProperties,
} from '@payments-contract/conformance/testing';
import { TEST_KEYS } from '../testing/index.js';
import { maxJsonDepth } from './contract-facts.js';
import * as hostile from './hostile-values.js';
import type { Expectation } from './judge.js';
import { liveContext, liveScenario } from './live-conformance.js';
import { serialize, type RawRequest } from './raw-http.js';

export interface HostileCase {
  /** The class of hostility (the unit of the CI sample and of the per-class counts). */
  group: string;
  name: string;
  build: () => Buffer;
  expectation: Expectation;
}

type Headers = ReadonlyArray<readonly [string, string]>;

export const VALID_AUTHORIZATION = basicAuthorization({ username: TEST_KEYS.aTest, password: '' });
const OTHER_MERCHANT_AUTHORIZATION = basicAuthorization({ username: TEST_KEYS.bTest, password: '' });

/** The valid key of an operation's cases, and the key of another merchant. */
interface CaseKeys {
  valid: string;
  otherMerchant: string;
}
const KEYS: CaseKeys = { valid: VALID_AUTHORIZATION, otherMerchant: OTHER_MERCHANT_AUTHORIZATION };
/**
 * A valid request of these control operations arms a fault: the next requests of its key are answered 429,
 * 500, 503 or late, on purpose. Their cases are sent in scopes no other case uses (both merchants' live
 * mode), so a fault they arm never answers another case.
 */
const FAULT_ARMING: ReadonlySet<string> = new Set(['armFault']);
const FAULT_KEYS: CaseKeys = {
  valid: basicAuthorization({ username: TEST_KEYS.aLive, password: '' }),
  otherMerchant: basicAuthorization({ username: TEST_KEYS.bLive, password: '' }),
};

/** What a body property's schema lets hostile values aim at. */
interface Property {
  name: string;
  types: string[];
  /** A free-form object (metadata): any member is the service's to store. */
  freeForm: boolean;
}

/** One operation's valid request, the base every hostile variant bends. */
export interface Base {
  operation: OperationModel;
  method: string;
  path: string;
  /** The valid query string ('' for none), without `?`. */
  query: string;
  /** Its header parameters; idempotency keys are made fresh for each request. */
  headers: () => Headers;
  /** The valid JSON body, as a value (undefined when the operation takes none). */
  body?: Json;
  properties: Property[];
  form: boolean;
}

function typesOf(contract: Contract, schema: Json | undefined): string[] {
  const resolved = contract.deref(schema);
  if (!isObject(resolved)) return [];
  const own = Array.isArray(resolved.type)
    ? resolved.type.map(String)
    : typeof resolved.type === 'string'
      ? [resolved.type]
      : [];
  const members = ['oneOf', 'anyOf', 'allOf'].flatMap((key) =>
    Array.isArray(resolved[key]) ? (resolved[key] as Json[]).flatMap((member) => typesOf(contract, member)) : [],
  );
  return [...new Set([...own, ...members])];
}

function propertiesOf(contract: Contract, operation: OperationModel): Property[] {
  return Object.entries(schemaProperties(contract, operation.body?.schema)).map(([name, schema]) => {
    const resolved = contract.deref(schema);
    const types = typesOf(contract, schema);
    return {
      name,
      types,
      freeForm:
        types.includes('object') &&
        isObject(resolved) &&
        !isObject(resolved.properties) &&
        resolved.additionalProperties !== false,
    };
  });
}

/** The operation's valid request: the conformance suite's fresh example body, callbacks sent to `callbackUrl`. */
export function baseOf(contract: Contract, operation: OperationModel, baseUrl: string, callbackUrl: string): Base {
  const { scenario, env } = liveScenario(
    liveContext({ baseUrl, key: 'aTest', contract, callbackUrl }),
    operation.operationId,
  );
  let body: Json | undefined;
  if (operation.body) {
    try {
      body = freshBody(scenario, env, operation);
    } catch (error) {
      if (!(error instanceof ScenarioSkipped)) throw error;
      body = {};
    }
  }
  const spec = buildRequest(contract, operation, body === undefined ? {} : { body });
  const query = new URLSearchParams(spec.query ?? {}).toString();
  const idempotency = new Set(operation.parameters.filter(isIdempotencyHeader).map((p) => p.name.toLowerCase()));
  const given = Object.entries(spec.headers ?? {});
  return {
    operation,
    method: operation.method.toUpperCase(),
    path: spec.path,
    query,
    headers: () =>
      given.map(([name, value]) => [name, idempotency.has(name.toLowerCase()) ? randomUUID() : value] as const),
    ...(body === undefined ? {} : { body }),
    properties: propertiesOf(contract, operation),
    form: operation.body?.mediaTypes.includes('application/x-www-form-urlencoded') === true,
  };
}

const RAW = 'RELIABILITY_RAW_VALUE_7f3a';

/** The base body as text with one property (or the whole body) replaced by raw JSON text. */
function bodyWith(base: Base, property: string | undefined, raw: string): string {
  if (property === undefined) return raw;
  const object = isObject(base.body ?? null) ? (base.body as Record<string, Json>) : {};
  return JSON.stringify({ ...object, [property]: RAW }).replace(`"${RAW}"`, () => raw);
}

/** The base body with the members of a raw JSON object added (unknown fields). */
export function bodyPlus(base: Base, rawObject: string): string {
  const text = JSON.stringify(isObject(base.body ?? null) ? base.body : {});
  return text === '{}' ? rawObject : `${text.slice(0, -1)},${rawObject.slice(1)}`;
}

export const baseText = (base: Base): string => JSON.stringify(base.body ?? {});

/** How a case departs from its operation's valid request (each field replaces the base's). */
export interface Variant {
  method?: string;
  target?: string;
  /** Added after the base's. */
  headers?: Headers;
  /** undefined: application/json when there is a body; null: no Content-Type header. */
  contentType?: string | null;
  body?: string | Buffer;
  chunkBytes?: number;
  version?: string;
}

/** The operation's request bent by `variant`, with `authorization` (none when undefined). */
export function variantRequest(base: Base, variant: Variant, authorization: string | undefined): RawRequest {
  const headers: Array<readonly [string, string]> = [...base.headers()];
  if (authorization !== undefined) headers.push(['Authorization', authorization]);
  const body = variant.body;
  const contentType =
    variant.contentType === undefined ? (body === undefined ? null : 'application/json') : variant.contentType;
  if (contentType !== null) headers.push(['Content-Type', contentType]);
  headers.push(...(variant.headers ?? []));
  return {
    method: variant.method ?? base.method,
    target: variant.target ?? (base.query ? `${base.path}?${base.query}` : base.path),
    headers,
    ...(body === undefined ? {} : { body }),
    ...(variant.chunkBytes === undefined ? {} : { chunkBytes: variant.chunkBytes }),
    ...(variant.version === undefined ? {} : { version: variant.version }),
  };
}

/** Collects the cases of one operation; each variant is sent with a valid key, and with none unless told. */
class Cases {
  readonly list: HostileCase[] = [];

  constructor(
    readonly base: Base,
    readonly keys: CaseKeys = KEYS,
  ) {}

  add(
    group: string,
    name: string,
    variant: Variant,
    expectation: Omit<Expectation, 'authenticated'> = {},
    authorizations: ReadonlyArray<string | undefined> = [this.keys.valid, undefined],
  ): void {
    const { base, keys } = this;
    for (const authorization of authorizations) {
      const method = variant.method ?? base.method;
      const label =
        authorization === keys.valid
          ? 'key'
          : authorization === undefined
            ? 'no key'
            : authorization === keys.otherMerchant
              ? 'other merchant'
              : 'broken key';
      this.list.push({
        group,
        name: `${base.operation.operationId} ${group}: ${name} [${label}]`,
        expectation: {
          operation: base.operation,
          ...expectation,
          authenticated: authorization === keys.valid || authorization === keys.otherMerchant,
          ...(method === 'HEAD' ? { head: true } : {}),
        },
        build: () => serialize(variantRequest(base, variant, authorization)),
      });
    }
  }
}

const ROUTED_ANYWHERE = { operation: undefined };

/**
 * Decision `json-body-limits`: with a valid key, a JSON body holding a number beyond the largest double, or
 * nested deeper than the limit, gets the operation's validation error, wherever the value is.
 */
interface Limits {
  maxDepth: number;
}

function beyondLimits(base: Base, beyond: boolean): Omit<Expectation, 'authenticated'> {
  const refusal = base.operation.validationError;
  return beyond && base.operation.body && refusal
    ? { refusal: { status: refusal.status, errorCode: refusal.error_code } }
    : {};
}

function bodyCases(cases: Cases, base: Base, limits: Limits): void {
  /** A nesting of `depth` placed `levels` below the body's top. */
  const deep = (depth: number, levels: number): Omit<Expectation, 'authenticated'> =>
    beyondLimits(base, depth + levels > limits.maxDepth);
  const huge = (literal: string): Omit<Expectation, 'authenticated'> => beyondLimits(base, hostile.overflows(literal));
  for (const text of hostile.MALFORMED_BODIES)
    cases.add('malformed JSON', JSON.stringify(text.slice(0, 40)), { body: text });
  for (const depth of hostile.NESTING_DEPTHS) {
    for (const shape of ['array', 'object'] as const)
      cases.add(
        'deep nesting',
        `whole body, ${depth} ${shape}s`,
        { body: hostile.nested(depth, shape) },
        deep(depth, 0),
      );
  }
  for (const [name, bytes] of hostile.INVALID_UTF8) {
    const text = baseText(base);
    const at = text.indexOf(':"') + 2;
    const body =
      at > 1
        ? Buffer.concat([Buffer.from(text.slice(0, at)), bytes, Buffer.from(text.slice(at))])
        : Buffer.concat([Buffer.from('{"x":"'), bytes, Buffer.from('"}')]);
    cases.add('invalid UTF-8', name, { body });
  }
  if (!base.operation.body) return;
  for (const property of base.properties) {
    for (const value of hostile.WRONG_TYPES)
      cases.add('wrong type', `${property.name}=${value}`, { body: bodyWith(base, property.name, value) });
    if (property.types.includes('string') || property.types.length === 0) {
      for (const [name, value] of hostile.ODD_STRINGS)
        cases.add('odd string', `${property.name} ${name}`, { body: bodyWith(base, property.name, value) });
    }
    if (property.types.includes('number') || property.types.includes('integer')) {
      for (const literal of hostile.HUGE_NUMBERS)
        cases.add(
          'huge number',
          `${property.name}=${literal.slice(0, 24)}`,
          { body: bodyWith(base, property.name, literal) },
          huge(literal),
        );
    }
    if (property.types.includes('array')) {
      const object = isObject(base.body ?? null) ? (base.body as Record<string, Json>) : {};
      const example = object[property.name];
      const item = JSON.stringify(Array.isArray(example) && example.length > 0 ? example[0] : 0);
      cases.add('huge array', `${property.name} of 100,000`, {
        body: bodyWith(base, property.name, `[${Array.from({ length: 100_000 }, () => item).join(',')}]`),
      });
    }
    if (property.freeForm) {
      // Classes 2 and 4 of the issue: a number a double cannot hold inside metadata was stored as null, or a 500.
      for (const literal of hostile.HUGE_NUMBERS)
        cases.add(
          'huge number in free-form field',
          `${property.name}.n=${literal.slice(0, 24)}`,
          { body: bodyWith(base, property.name, `{"n":${literal}}`) },
          huge(literal),
        );
      for (const depth of hostile.NESTING_DEPTHS)
        cases.add(
          'deep nesting',
          `${property.name}.n ${depth} objects`,
          { body: bodyWith(base, property.name, `{"n":${hostile.nested(depth, 'object')}}`) },
          deep(depth, 2),
        );
    }
  }
  const first = base.properties[0]?.name;
  if (first !== undefined) {
    for (const depth of hostile.NESTING_DEPTHS)
      cases.add(
        'deep nesting',
        `${first} ${depth} arrays`,
        { body: bodyWith(base, first, hostile.nested(depth, 'array')) },
        deep(depth, 1),
      );
  }
  for (const literal of hostile.HUGE_NUMBERS)
    cases.add(
      'huge number in unknown field',
      `unknown=${literal.slice(0, 24)}`,
      { body: bodyPlus(base, `{"reliability_unknown":${literal}}`) },
      huge(literal),
    );
  for (const depth of hostile.NESTING_DEPTHS)
    cases.add(
      'deep nesting',
      `unknown field ${depth} objects`,
      { body: bodyPlus(base, `{"reliability_unknown":${hostile.nested(depth, 'object')}}`) },
      deep(depth, 1),
    );
  for (const [name, raw] of hostile.UNKNOWN_FIELDS) cases.add('unknown fields', name, { body: bodyPlus(base, raw) });
  cases.add('huge array', 'whole body of 100,000', {
    body: `[${Array.from({ length: 100_000 }, () => '0').join(',')}]`,
  });
  cases.add('huge array', 'unknown field of 200,000', {
    body: bodyPlus(base, `{"reliability_unknown":[${Array.from({ length: 200_000 }, () => '0').join(',')}]}`),
  });
  for (const contentType of hostile.CONTENT_TYPES)
    cases.add('content type', JSON.stringify(contentType.slice(0, 40)), { body: baseText(base), contentType });
  cases.add('content type', 'none', { body: baseText(base), contentType: null });
  if (base.form) {
    for (const form of hostile.BROKEN_FORMS)
      cases.add('broken form', JSON.stringify(form.slice(0, 40)), {
        body: form,
        contentType: 'application/x-www-form-urlencoded',
      });
    for (const [name, bytes] of hostile.INVALID_UTF8)
      cases.add('broken form', `raw ${name}`, {
        body: Buffer.concat([Buffer.from('a='), bytes]),
        contentType: 'application/x-www-form-urlencoded',
      });
  }
}

/** The group of unicodeCases: text no store keeps, which the suite sends to every store. */
export const UNICODE_GROUP = 'unicode text';

/**
 * Decision `json-body-text`: with a valid key, a lone surrogate escape or U+0000 in any string of a JSON body
 * (a field, a free-form member or its name, an unknown field) gets the operation's validation error. PostgreSQL
 * answered 500 to these where the embedded stores stored them (issue 24).
 */
function unicodeCases(cases: Cases, base: Base): void {
  if (!base.operation.body) return;
  const refused = beyondLimits(base, true);
  for (const property of base.properties) {
    if (property.types.includes('string') || property.types.length === 0) {
      for (const [name, value] of hostile.UNSTORABLE_STRINGS)
        cases.add(UNICODE_GROUP, `${property.name} ${name}`, { body: bodyWith(base, property.name, value) }, refused);
    }
    if (property.freeForm) {
      for (const [name, value] of hostile.UNSTORABLE_STRINGS) {
        cases.add(
          UNICODE_GROUP,
          `${property.name}.n ${name}`,
          { body: bodyWith(base, property.name, `{"n":${value}}`) },
          refused,
        );
        cases.add(
          UNICODE_GROUP,
          `${property.name} name ${name}`,
          { body: bodyWith(base, property.name, `{${value}:1}`) },
          refused,
        );
      }
    }
  }
  for (const [name, value] of hostile.UNSTORABLE_STRINGS)
    cases.add(
      UNICODE_GROUP,
      `unknown field ${name}`,
      { body: bodyPlus(base, `{"reliability_unknown":${value}}`) },
      refused,
    );
}

/** The unicode text cases of every operation of `contracts` that takes a body. */
export function unicodeTextCases(options: HostileCaseOptions): HostileCase[] {
  return options.contracts.flatMap((contract) =>
    contract.model.operations.flatMap((operation) => {
      const cases = new Cases(
        baseOf(contract, operation, options.baseUrl, options.callbackUrl),
        FAULT_ARMING.has(operation.operationId) ? FAULT_KEYS : KEYS,
      );
      unicodeCases(cases, cases.base);
      return cases.list;
    }),
  );
}

/** Bodies around the cap: declared over it, sent over it with and without a length, exactly at it. */
function limitCases(cases: Cases, base: Base): void {
  const cap = DEFAULT_MAX_BODY_BYTES;
  const over = `{"pad":"${'p'.repeat(cap + 64 * 1024)}"}`;
  cases.add('body limit', 'declared 2 MiB, 2 bytes sent', {
    body: '{}',
    headers: [['Content-Length', String(2 * cap)]],
  });
  cases.add('body limit', 'over the cap with a length', { body: over });
  cases.add('body limit', 'over the cap, chunked', { body: over, chunkBytes: 64 * 1024 });
  cases.add('body limit', 'valid body, chunked in 7-byte chunks', { body: baseText(base), chunkBytes: 7 });
  const padded = (size: number): string => {
    const empty = bodyPlus(base, '{"reliability_pad":""}');
    return bodyPlus(base, `{"reliability_pad":"${'p'.repeat(Math.max(0, size - Buffer.byteLength(empty)))}"}`);
  };
  cases.add('body limit', 'exactly at the cap', { body: padded(cap) });
  cases.add('body limit', 'one byte over the cap', { body: padded(cap + 1) });
}

function protocolCases(cases: Cases, base: Base): void {
  const body = base.operation.body ? baseText(base) : undefined;
  for (const [name, headers] of hostile.ODD_HEADERS) {
    const declaresLength = headers.some(([header]) => header.toLowerCase() === 'content-length');
    const declaresCoding = headers.some(([header]) => header.toLowerCase() === 'transfer-encoding');
    cases.add('odd headers', name, {
      headers,
      body: declaresLength ? '{}' : (body ?? '{}'),
      ...(declaresCoding && !declaresLength ? { chunkBytes: 16 } : {}),
    });
  }
  for (const [name, headers] of hostile.OVERSIZED_HEADERS)
    cases.add('oversized headers', name, { headers, ...(body === undefined ? {} : { body }) });
  for (const version of hostile.HTTP_VERSIONS)
    cases.add('HTTP version', JSON.stringify(version), { version, ...(body === undefined ? {} : { body }) });
  const others = hostile.BROKEN_AUTHORIZATIONS;
  cases.add('authorization', 'broken', { ...(body === undefined ? {} : { body }) }, {}, others);
  cases.add('authorization', "another merchant's key", { ...(body === undefined ? {} : { body }) }, {}, [
    cases.keys.otherMerchant,
  ]);
}

function pathCases(cases: Cases, base: Base): void {
  const target = (path: string): string => (base.query ? `${path}?${base.query}` : path);
  const body = base.operation.body ? baseText(base) : undefined;
  const withBody = body === undefined ? {} : { body };
  for (const [name, bend] of hostile.PATH_BENDS)
    cases.add('odd path', name, { target: target(bend(base.path)), ...withBody }, ROUTED_ANYWHERE);
  for (const parameter of base.operation.parameters) {
    if (parameter.in === 'path') {
      for (const value of hostile.ODD_PARAMETERS) {
        const path = base.operation.path.replace(`{${parameter.name}}`, value).replace(/\{[^}]+\}/g, 'x');
        cases.add(
          'odd path parameter',
          `${parameter.name}=${value.slice(0, 24)}`,
          { target: target(path), ...withBody },
          ROUTED_ANYWHERE,
        );
      }
    }
    if (parameter.in === 'query') {
      for (const value of hostile.ODD_PARAMETERS)
        cases.add('odd query parameter', `${parameter.name}=${value.slice(0, 24)}`, {
          target: `${base.path}?${parameter.name}=${value}`,
        });
      cases.add('odd query parameter', `${parameter.name} repeated`, {
        target: `${base.path}?${base.query}&${base.query}`,
      });
    }
  }
  cases.add('odd query parameter', 'unknown 20 KiB parameter', {
    target: `${target(base.path)}${base.query ? '&' : '?'}x=${'q'.repeat(20 * 1024)}`,
    ...withBody,
  });
  for (const method of hostile.ODD_METHODS) {
    cases.add(
      'odd method',
      method.slice(0, 24),
      { method, target: method === 'CONNECT' ? '127.0.0.1:443' : target(base.path), ...withBody },
      ROUTED_ANYWHERE,
    );
  }
}

/** Paths of no operation: the same few whatever the contract holds. */
function rootCases(base: Base): HostileCase[] {
  const cases = new Cases(base);
  for (const path of hostile.ODD_ROOT_PATHS) {
    cases.add('odd root path', `GET ${path.slice(0, 40)}`, { method: 'GET', target: path }, ROUTED_ANYWHERE);
    cases.add(
      'odd root path',
      `POST ${path.slice(0, 40)}`,
      { method: 'POST', target: path, body: '{}' },
      ROUTED_ANYWHERE,
    );
  }
  cases.add('odd root path', 'CONNECT with a path', { method: 'CONNECT', target: '/balance' }, ROUTED_ANYWHERE);
  return cases.list.map((c) => ({ ...c, name: c.name.replace(`${base.operation.operationId} `, '') }));
}

export interface HostileCaseOptions {
  contracts: readonly Contract[];
  baseUrl: string;
  callbackUrl: string;
}

/** Every hostile case of every operation of `contracts`. */
export function hostileCases(options: HostileCaseOptions): HostileCase[] {
  const all: HostileCase[] = [];
  const limits: Limits = { maxDepth: maxJsonDepth(options.contracts) };
  let first: Base | undefined;
  for (const contract of options.contracts) {
    for (const operation of contract.model.operations) {
      const base = baseOf(contract, operation, options.baseUrl, options.callbackUrl);
      first ??= base;
      const cases = new Cases(base, FAULT_ARMING.has(operation.operationId) ? FAULT_KEYS : KEYS);
      bodyCases(cases, base, limits);
      unicodeCases(cases, base);
      limitCases(cases, base);
      protocolCases(cases, base);
      pathCases(cases, base);
      all.push(...cases.list);
    }
  }
  if (first) all.push(...rootCases(first));
  return all;
}

/**
 * About `count` cases spread over every group (each group sampled at the same stride), so a smaller run
 * still sends every class of hostility; at least `count` of them, the whole list when it is no longer.
 */
export function sample(cases: readonly HostileCase[], count: number): HostileCase[] {
  const stride = Math.max(1, Math.floor(cases.length / count));
  const groups = new Map<string, HostileCase[]>();
  for (const item of cases) groups.set(item.group, [...(groups.get(item.group) ?? []), item]);
  return [...groups.values()].flatMap((group) => group.filter((_, index) => index % stride === 0));
}
