// The refusals that keep a browser page from driving the sandbox with its public development keys:
// - every state-changing control operation (each non-GET operation of the control contract), sent as a
//   browser sends it for a page of another site, with a valid key, is answered 403 CROSS_SITE_REQUEST_REFUSED
//   and changes nothing (the merchant's clock, settings, faults, deliveries and balance read the same after);
// - every operation of both contracts with a foreign Host (DNS rebinding) and over HTTP/1.1 without Host is
//   answered as the decision sandbox-host-names says, in JSON, with a request id, never a 5xx.
import { describe, expect, it } from 'vitest';
import { isObject } from '@payments-contract/contract/model';
import type { Json, OperationModel } from '@payments-contract/contract/model/types';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { type Contract, mapPool } from '@payments-contract/conformance/testing';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { hostRefusals } from './contract-facts.js';
import { useSandbox } from './fixtures.js';
import { controlContract, serviceContract } from './live-conformance.js';
import { sendRaw, type RawOutcome } from './raw-http.js';
import { figures, summaryLine } from './scale.js';

const authorization = basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' });
const CROSS_SITE_CODE = 'CROSS_SITE_REQUEST_REFUSED';
const ATTACKER = 'http://attacker.example';

/** The operation's path with every parameter filled (a refusal comes before any lookup, so any value does). */
const pathOf = (operation: OperationModel): string => operation.path.replace(/\{[^}]+\}/g, '5ed75086a883856178afc12f');

/** The value at `keys` below `value`, through objects only. */
const at = (value: Json | undefined, ...keys: string[]): Json | undefined =>
  keys.reduce<Json | undefined>((found, key) => (isObject(found) ? found[key] : undefined), value);

/** The first JSON example of the operation's request body, or `{}`: what the request would do if it were let through. */
function exampleBody(contract: Contract, operation: OperationModel): Json {
  const content = at(
    contract.doc.paths,
    operation.path,
    operation.method,
    'requestBody',
    'content',
    'application/json',
  );
  const example =
    at(content, 'example') ??
    (isObject(at(content, 'examples'))
      ? at(Object.values(at(content, 'examples') as Record<string, Json>)[0], 'value')
      : undefined);
  return example ?? {};
}

/** A request as bytes: the head written out exactly (raw-http's serialize would add a Host). */
function rawRequest(
  method: string,
  target: string,
  headers: ReadonlyArray<readonly [string, string]>,
  body = '',
): Buffer {
  const lines = [
    `${method} ${target} HTTP/1.1`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`, 'utf8');
}

/** The ways a browser sends a write for a page of another site: what each header says, and the body it can send. */
const BROWSER_VARIANTS: ReadonlyArray<{
  name: string;
  headers: (host: string) => Array<[string, string]>;
  body: (example: Json) => { type: string; text: string };
}> = [
  // A form posted from another site: the form encoding of the example's top-level values.
  {
    name: 'form from another site',
    headers: () => [
      ['Sec-Fetch-Site', 'cross-site'],
      ['Sec-Fetch-Mode', 'navigate'],
      ['Origin', ATTACKER],
    ],
    body: (example) => ({
      type: 'application/x-www-form-urlencoded',
      text: new URLSearchParams(
        Object.entries(isObject(example) ? example : {}).map(([name, value]) => [
          name,
          typeof value === 'object' ? JSON.stringify(value) : String(value),
        ]),
      ).toString(),
    }),
  },
  // fetch() with a "simple" content type, no preflight: the JSON rides in text/plain.
  {
    name: 'simple fetch from another site',
    headers: () => [
      ['Sec-Fetch-Site', 'cross-site'],
      ['Sec-Fetch-Mode', 'no-cors'],
      ['Origin', ATTACKER],
    ],
    body: (example) => ({ type: 'text/plain', text: JSON.stringify(example) }),
  },
  // Another port of localhost is another program: same-site, not same-origin.
  {
    name: 'page on another local port',
    headers: () => [
      ['Sec-Fetch-Site', 'same-site'],
      ['Sec-Fetch-Mode', 'cors'],
      ['Origin', 'http://localhost:1'],
    ],
    body: (example) => ({ type: 'application/json', text: JSON.stringify(example) }),
  },
  // An older browser without Sec-Fetch-*: only Origin tells.
  {
    name: 'older browser, Origin only',
    headers: () => [['Origin', ATTACKER]],
    body: (example) => ({ type: 'text/plain', text: JSON.stringify(example) }),
  },
  // A sandboxed frame or a redirect from elsewhere: Origin null.
  {
    name: 'Origin null',
    headers: () => [['Origin', 'null']],
    body: (example) => ({ type: 'text/plain', text: JSON.stringify(example) }),
  },
];

interface Tally {
  sent: number;
  wrong: string[];
  nonJson: number;
  serverErrors: number;
  withoutRequestId: number;
}

const newTally = (): Tally => ({ sent: 0, wrong: [], nonJson: 0, serverErrors: 0, withoutRequestId: 0 });

/** Counts one answer against the status and code it must have. */
function judge(tally: Tally, label: string, outcome: RawOutcome, status: number, code: string): void {
  tally.sent++;
  if (outcome.kind !== 'answer') return void tally.wrong.push(`${label}: ${outcome.kind}`);
  if (outcome.status >= 500) tally.serverErrors++;
  if (outcome.headers['x-request-id'] === undefined) tally.withoutRequestId++;
  let found: unknown;
  try {
    found = (JSON.parse(outcome.body.toString('utf8')) as { error_code?: unknown }).error_code;
  } catch {
    tally.nonJson++;
  }
  if (outcome.status !== status || found !== code) tally.wrong.push(`${label}: ${outcome.status} ${String(found)}`);
}

const counts = (tally: Tally): Record<string, number> => ({
  sent: tally.sent,
  wrong: tally.wrong.length,
  'non-JSON': tally.nonJson,
  '5xx': tally.serverErrors,
  'without x-request-id': tally.withoutRequestId,
});

describe('browser and Host refusals', () => {
  const started = useSandbox({ env: { SANDBOX_RATE_LIMITS: 'false' } });
  const send = (bytes: Buffer): Promise<RawOutcome> =>
    sendRaw(bytes, { port: started.sandbox.port, timeoutMs: figures.requestTimeoutMs });

  /** What a cross-site write could change, read with the same key: any difference after the run is one that got through. */
  async function state(): Promise<string> {
    const read = async (path: string, drop: readonly string[] = []): Promise<unknown> => {
      const response = await fetch(`${started.sandbox.url}${path}`, { headers: { authorization } });
      const body = (await response.json()) as Record<string, unknown>;
      for (const name of drop) delete body[name];
      return [response.status, body];
    };
    // `now` moves with the wall clock; the clock's offset is what a write would change.
    return JSON.stringify(
      await Promise.all([
        read('/sandbox/clock', ['now']),
        read('/sandbox', ['now']),
        read('/sandbox/settings'),
        read('/sandbox/faults'),
        read('/sandbox/callbacks'),
        read('/balance'),
      ]),
    );
  }

  it('refuses every state-changing control operation sent cross-site by a browser, and changes nothing', async () => {
    const writes = controlContract.model.operations.filter((operation) => operation.method !== 'get');
    const host = `127.0.0.1:${started.sandbox.port}`;
    const before = await state();
    const tally = newTally();
    const undocumented = writes
      .filter(
        (operation) =>
          !operation.responses.some(
            (response) => response.status === 403 && response.errorCodes.includes(CROSS_SITE_CODE),
          ),
      )
      .map((operation) => operation.operationId);
    const cases = writes.flatMap((operation) => BROWSER_VARIANTS.map((variant) => ({ operation, variant })));
    await mapPool(cases, figures.hostileConcurrency, async ({ operation, variant }) => {
      const { type, text } = variant.body(exampleBody(controlContract, operation));
      const headers: Array<[string, string]> = [
        ['Host', host],
        ['Authorization', authorization],
        ['Content-Type', type],
        ...variant.headers(host),
      ];
      judge(
        tally,
        `${operation.operationId} (${variant.name})`,
        await send(rawRequest(operation.method.toUpperCase(), pathOf(operation), headers, text)),
        403,
        CROSS_SITE_CODE,
      );
    });
    const after = await state();

    // The check can see a change: the same clock advance from the sandbox's own page (same-origin) goes through.
    const advance = controlContract.operation('advanceClock');
    const own = await send(
      rawRequest(
        'POST',
        advance.path,
        [
          ['Host', host],
          ['Authorization', authorization],
          ['Content-Type', 'application/json'],
          ['Sec-Fetch-Site', 'same-origin'],
          ['Origin', `http://${host}`],
        ],
        JSON.stringify(exampleBody(controlContract, advance)),
      ),
    );
    const afterOwn = await state();

    console.log(
      summaryLine('cross-site writes', {
        operations: writes.length,
        variants: BROWSER_VARIANTS.length,
        ...counts(tally),
        'state changed': before === after ? 0 : 1,
        'same-origin control status': own.kind === 'answer' ? own.status : own.kind,
      }),
    );
    for (const line of tally.wrong.slice(0, 10)) console.log(`  ${line}`);

    expect(undocumented, 'state-changing operations whose contract does not document the refusal').toEqual([]);
    expect(tally.wrong).toEqual([]);
    expect(counts(tally)).toMatchObject({ 'non-JSON': 0, '5xx': 0, 'without x-request-id': 0 });
    expect(after, 'the state after the cross-site writes').toBe(before);
    expect([own.kind === 'answer' ? own.status : own.kind, afterOwn === after]).toEqual([200, false]);
  });

  it('refuses every operation of both contracts with a foreign Host, and without Host over HTTP/1.1, in JSON', async () => {
    const contracts = [serviceContract, controlContract];
    const refusals = hostRefusals(contracts);
    // A rebound name on the sandbox's port, the right name on another port, and a name that only starts like it.
    const foreignHosts = [`attacker.example:${started.sandbox.port}`, 'localhost:1', '127.0.0.1.attacker.example'];
    const cases = contracts.flatMap((contract) =>
      contract.model.operations.flatMap((operation) => [
        ...foreignHosts.map((host) => ({ operation, host, expected: refusals.foreign })),
        { operation, host: undefined, expected: refusals.missing },
      ]),
    );
    const tallies = { foreign: newTally(), missing: newTally() };
    await mapPool(cases, figures.hostileConcurrency, async ({ operation, host, expected }) => {
      const headers: Array<[string, string]> = [
        ...(host === undefined ? [] : [['Host', host] as [string, string]]),
        ['Authorization', authorization],
      ];
      const outcome = await send(rawRequest(operation.method.toUpperCase(), pathOf(operation), headers));
      judge(
        host === undefined ? tallies.missing : tallies.foreign,
        `${operation.operationId} (Host ${host ?? 'missing'})`,
        outcome,
        expected.status,
        expected.code,
      );
    });
    const operations = contracts.reduce((sum, contract) => sum + contract.model.operations.length, 0);
    console.log(
      summaryLine(`foreign Host (${refusals.foreign.status} ${refusals.foreign.code})`, {
        operations,
        hosts: foreignHosts.length,
        ...counts(tallies.foreign),
      }),
    );
    console.log(
      summaryLine(`missing Host (${refusals.missing.status} ${refusals.missing.code})`, {
        operations,
        ...counts(tallies.missing),
      }),
    );
    for (const line of [...tallies.foreign.wrong, ...tallies.missing.wrong].slice(0, 10)) console.log(`  ${line}`);

    for (const tally of Object.values(tallies)) {
      expect(tally.wrong).toEqual([]);
      expect(counts(tally)).toMatchObject({ 'non-JSON': 0, '5xx': 0, 'without x-request-id': 0 });
    }
  });
});
