// The request deadlines, over HTTPS and, for comparison, plain HTTP: a sandbox process on each, started with
// short deadlines through the variables an operator sets (HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS,
// TLS_HANDSHAKE_TIMEOUT_MS), holds many connections of each slow kind at once. Every one must be ended by its
// own deadline plus a bounded slack, counted from where the server counts it (the connection up, the TLS
// handshake done): answered 408 in JSON, or closed for a stalled TLS handshake (nothing can be answered
// before TLS is up). slow-clients.reliability.ts does the same at Node's default deadlines.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { checkIntervalMs, type Deadlines } from '../deadlines.js';
import { routerLevelAnswers } from './contract-facts.js';
import { useTempDir } from './fixtures.js';
import { controlContract, serviceContract } from './live-conformance.js';
import { selfSignedCertificate, startSandboxProcess, type SandboxProcess } from './sandbox-process.js';
import { figures, summaryLine } from './scale.js';
import {
  drip,
  holdUntilEnded,
  silent,
  tcpTo,
  tlsTo,
  writeOnce,
  type Opener,
  type SlowEnd,
  type Talk,
} from './slow-connection.js';

/**
 * Short enough that the file takes seconds; the same for both schemes so their figures compare. The handshake
 * gets more: hundreds of handshakes at once on a busy two-core machine take over a second to get through.
 */
const DEADLINES: Deadlines = { handshakeMs: 3_000, headersMs: 1_000, requestMs: 2_000 };
/** Node looks for late connections every checkIntervalMs, so an end may come that late; plus room for a busy machine. */
const SLACK_MS = checkIntervalMs(DEADLINES) + 1_500;
/** A byte this often: the connection is never idle as long as an idle timeout would wait for. */
const DRIP_MS = 100;

const authorization = basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' });
const head = (method: string, path: string): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n`;
const TIMEOUT_CODE = routerLevelAnswers([serviceContract, controlContract]).get(408);

type Scheme = 'https' | 'http';

interface SlowClass {
  name: string;
  schemes: readonly Scheme[];
  /** Which deadline must end it. */
  deadline: keyof Deadlines;
  /** Over TCP even on the TLS port (the handshake itself is what stalls). */
  bare?: true;
  talk: Talk;
  /** How it must end: a 408 in JSON, or a close (nothing to answer in). */
  end: '408' | 'close';
}

const CLASSES: readonly SlowClass[] = [
  // The first bytes of a TLS record and nothing more: the TLS layer waits for the rest.
  {
    name: 'stalled inside the TLS handshake',
    schemes: ['https'],
    deadline: 'handshakeMs',
    bare: true,
    talk: writeOnce(Buffer.from([0x16, 0x03, 0x01])),
    end: 'close',
  },
  { name: 'silent after connecting', schemes: ['https', 'http'], deadline: 'headersMs', talk: silent, end: '408' },
  {
    name: 'request head cut off',
    schemes: ['https', 'http'],
    deadline: 'headersMs',
    talk: writeOnce(head('GET', '/balance')),
    end: '408',
  },
  {
    name: 'request head dripped',
    schemes: ['https', 'http'],
    deadline: 'headersMs',
    talk: drip(`${head('GET', '/balance')}X-Slow: `, 'abcdefgh', DRIP_MS),
    end: '408',
  },
  {
    name: 'body dripped',
    schemes: ['https', 'http'],
    deadline: 'requestMs',
    talk: drip(
      `${head('POST', '/customers')}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"`,
      'x',
      DRIP_MS,
    ),
    end: '408',
  },
];

/** How a connection ended, as the figures print it: `408 REQUEST_TIMEOUT`, `closed`, `held`... */
function endOf(end: SlowEnd): string {
  if (end.kind === 'held') return 'held';
  if (end.kind === 'closed') return end.bytes === 0 ? 'closed' : `closed after ${end.bytes} bytes`;
  try {
    const { error_code: code } = JSON.parse(end.body.toString('utf8')) as { error_code?: unknown };
    return typeof code === 'string' ? `${end.status} ${code}` : `${end.status} non-JSON`;
  } catch {
    return `${end.status} non-JSON`;
  }
}

const expectedEnd = (slow: SlowClass): string => (slow.end === 'close' ? 'closed' : `408 ${TIMEOUT_CODE}`);

describe('request deadlines over HTTPS and HTTP', () => {
  const dir = useTempDir('deadlines');
  const sandboxes = {} as Record<Scheme, SandboxProcess>;
  let ca: Buffer;

  beforeAll(async () => {
    const certificate = selfSignedCertificate(dir.path);
    ca = readFileSync(certificate.cert);
    const env = {
      TLS_HANDSHAKE_TIMEOUT_MS: String(DEADLINES.handshakeMs),
      HEADERS_TIMEOUT_MS: String(DEADLINES.headersMs),
      REQUEST_TIMEOUT_MS: String(DEADLINES.requestMs),
      // Many slow POSTs from one key at once: each is judged by its deadline, not counted against a limit.
      SANDBOX_RATE_LIMITS: 'false',
    };
    [sandboxes.https, sandboxes.http] = await Promise.all([
      startSandboxProcess({ env: { ...env, TLS_CERT: certificate.cert, TLS_KEY: certificate.key } }),
      startSandboxProcess({ env }),
    ]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(sandboxes).map((sandbox) => sandbox.remove()));
  });

  it(`ends ${figures.deadlineClients} connections of each slow kind at its configured deadline, over HTTPS as over HTTP`, async () => {
    const opener = (scheme: Scheme, slow: SlowClass): Opener => {
      const { port } = sandboxes[scheme];
      return scheme === 'https' && !slow.bare ? tlsTo(port, ca) : tcpTo(port);
    };
    const runs = CLASSES.flatMap((slow) => slow.schemes.map((scheme) => ({ slow, scheme })));
    // All at once: each kind also has to be ended while the others are being held.
    const measured = await Promise.all(
      runs.map(async ({ slow, scheme }) => {
        const limitMs = DEADLINES[slow.deadline] + SLACK_MS;
        const ends = await Promise.all(
          Array.from({ length: figures.deadlineClients }, () =>
            holdUntilEnded(opener(scheme, slow), slow.talk, limitMs + 3_000),
          ),
        );
        return { slow, scheme, limitMs, ends };
      }),
    );

    const wrong: string[] = [];
    for (const { slow, scheme, limitMs, ends } of measured) {
      const counts = new Map<string, number>();
      for (const end of ends) counts.set(endOf(end), (counts.get(endOf(end)) ?? 0) + 1);
      const times = ends.map((end) => end.ms);
      const ups = ends.flatMap((end) => (end.upMs === undefined ? [] : [end.upMs]));
      const late = times.filter((ms) => ms > limitMs).length;
      // Ended before its deadline is wrong too: a client within it must be served (timer granularity aside).
      const early = times.filter((ms) => ms < DEADLINES[slow.deadline] - 20).length;
      console.log(
        summaryLine(`${scheme} ${slow.name}`, {
          connections: ends.length,
          ends: [...counts].map(([end, count]) => `${end.replaceAll(' ', '_')}x${count}`).join(','),
          'deadline ms': DEADLINES[slow.deadline],
          'min ms': Math.round(Math.min(...times)),
          'max ms': Math.round(Math.max(...times)),
          'limit ms': limitMs,
          early,
          late,
          ...(scheme === 'https' && !slow.bare ? { 'max handshake ms': Math.round(Math.max(...ups)) } : {}),
        }),
      );
      for (const [end, count] of counts)
        if (end !== expectedEnd(slow)) wrong.push(`${scheme} ${slow.name}: ${end} x${count}`);
      if (late > 0) wrong.push(`${scheme} ${slow.name}: ${late} ended after ${limitMs} ms`);
      if (early > 0)
        wrong.push(`${scheme} ${slow.name}: ${early} ended before the ${DEADLINES[slow.deadline]} ms deadline`);
    }
    expect(wrong, 'slow connections not ended as their deadline says').toEqual([]);
    // Both still serve once the slow connections are gone.
    for (const scheme of ['http', 'https'] as const) {
      const end = await holdUntilEnded(
        opener(scheme, CLASSES[1]!),
        writeOnce(`${head('GET', '/health')}Connection: close\r\n\r\n`),
        5_000,
      );
      expect([scheme, end.kind === 'answer' ? end.status : end.kind]).toEqual([scheme, 200]);
    }
  });
});
