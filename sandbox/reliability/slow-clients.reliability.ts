// Slow clients (slowloris): connections that say nothing, trickle a request head or body a byte at a time,
// or stop halfway, on the plain port and on the HTTPS port (where plain HTTP is sniffed and refused). While
// they are held, a normal client on each port must keep getting its answers promptly. At full scale the suite
// then waits for the server's own timeouts: each slow connection must end, with a JSON refusal or a close,
// never be held beyond them.
import { readFileSync } from 'node:fs';
import { Agent, request as httpsRequest } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basicAuthorization } from '@payments-contract/server/runtime/basic-auth';
import { DEFAULT_TEST_SECRET_KEY } from '../config.js';
import { sendRaw, type RawOutcome } from './raw-http.js';
import { figures, summaryLine } from './scale.js';
import { useTempDir } from './fixtures.js';
import { selfSignedCertificate, startSandboxProcess, type SandboxProcess } from './sandbox-process.js';

const authorization = basicAuthorization({ username: DEFAULT_TEST_SECRET_KEY, password: '' });
const PAUSE_MS = 1_000;
/**
 * Node's defaults, which the sandbox keeps: a request head must be complete within headersTimeout (60 s), a
 * whole request within requestTimeout (300 s), both checked every connectionsCheckingInterval (30 s). The
 * HTTPS port's sniffer answers plain HTTP after 30 s without its head.
 */
const MARGIN_MS = 10_000;
const HEAD_DEADLINE_MS = 60_000 + 30_000 + MARGIN_MS;
const REQUEST_DEADLINE_MS = 300_000 + 30_000 + MARGIN_MS;

interface SlowKind {
  name: string;
  port: 'plain' | 'tls';
  /** The pieces written PAUSE_MS apart (none: the connection says nothing). */
  pieces: (count: number) => Buffer[];
  /** When the server's settings must have ended it, from its start. */
  deadlineMs: number;
}

const head = (method: string, path: string, extra = ''): string =>
  `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\n${extra}`;
const trickle = (start: string, piece: (i: number) => string) => (count: number) => [
  Buffer.from(start),
  ...Array.from({ length: count }, (_, i) => Buffer.from(piece(i))),
];

const KINDS: SlowKind[] = [
  { name: 'idle connection', port: 'plain', pieces: () => [], deadlineMs: HEAD_DEADLINE_MS },
  {
    name: 'request head trickled',
    port: 'plain',
    pieces: trickle(head('GET', '/balance'), (i) => `X-Slow-${i}: x\r\n`),
    deadlineMs: HEAD_DEADLINE_MS,
  },
  {
    name: 'request head cut off',
    port: 'plain',
    pieces: () => [Buffer.from(head('GET', '/balance'))],
    deadlineMs: HEAD_DEADLINE_MS,
  },
  {
    name: 'body trickled',
    port: 'plain',
    pieces: trickle(
      head('POST', '/customers', 'Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":"'),
      () => 'x',
    ),
    deadlineMs: REQUEST_DEADLINE_MS,
  },
  { name: 'idle connection on the TLS port', port: 'tls', pieces: () => [], deadlineMs: HEAD_DEADLINE_MS },
  {
    name: 'plain HTTP cut off on the TLS port',
    port: 'tls',
    pieces: () => [Buffer.from(head('GET', '/balance'))],
    deadlineMs: HEAD_DEADLINE_MS,
  },
  {
    name: 'plain HTTP trickled on the TLS port',
    port: 'tls',
    pieces: trickle(head('GET', '/balance'), (i) => `X-Slow-${i}: x\r\n`),
    deadlineMs: HEAD_DEADLINE_MS,
  },
];

/** How a slow connection ended: a JSON answer (its status and code), another answer, a close, or still held. */
function endOf(outcome: RawOutcome): string {
  if (outcome.kind === 'hang') return 'held';
  if (outcome.kind === 'dropped') return 'closed';
  try {
    const { error_code: code } = JSON.parse(outcome.body.toString('utf8')) as { error_code?: unknown };
    return typeof code === 'string' ? `${outcome.status} ${code}` : `${outcome.status} non-JSON`;
  } catch {
    return `${outcome.status} non-JSON`;
  }
}

interface NormalClient {
  answered: number;
  failed: string[];
  latencies: number[];
}

/** Sends plain requests one after another until `until`, timing each. */
async function normalClient(send: () => Promise<number>, until: number): Promise<NormalClient> {
  const result: NormalClient = { answered: 0, failed: [], latencies: [] };
  while (performance.now() < until) {
    const started = performance.now();
    try {
      const status = await send();
      result.latencies.push(performance.now() - started);
      if (status === 200) result.answered++;
      else result.failed.push(`status ${status}`);
    } catch (error) {
      result.failed.push(error instanceof Error ? error.message : String(error));
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return result;
}

const quantile = (values: number[], q: number): number =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))] ?? Number.NaN;

describe('slow clients', () => {
  let plain: SandboxProcess;
  let tls: SandboxProcess;
  const dir = useTempDir('tls');
  let ca: Buffer;

  beforeAll(async () => {
    const certificate = selfSignedCertificate(dir.path);
    ca = readFileSync(certificate.cert);
    [plain, tls] = await Promise.all([
      startSandboxProcess(),
      startSandboxProcess({ env: { TLS_CERT: certificate.cert, TLS_KEY: certificate.key } }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([plain?.remove(), tls?.remove()]);
  });

  it(`keeps serving normal clients beside ${figures.slowClients} slow ones${figures.slowTimeoutWaitMs > 0 ? ', and ends each slow one by its own timeouts' : ''}`, async () => {
    const waiting = figures.slowTimeoutWaitMs > 0;
    const agent = new Agent({ keepAlive: true, ca });
    const httpsGet = (): Promise<number> =>
      new Promise((resolve, reject) => {
        const outgoing = httpsRequest(
          `${tls.url}/balance`,
          { agent, headers: { authorization }, timeout: 5_000 },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        outgoing.on('timeout', () => outgoing.destroy(new Error('no answer within 5 s')));
        outgoing.on('error', reject);
        outgoing.end();
      });
    const plainGet = async (): Promise<number> => {
      const response = await fetch(`${plain.url}/balance`, {
        headers: { authorization },
        signal: AbortSignal.timeout(5_000),
      });
      await response.arrayBuffer();
      return response.status;
    };

    const started = performance.now();
    const slow = Array.from({ length: figures.slowClients }, (_, i) => KINDS[i % KINDS.length]!).map((kind) => {
      const timeoutMs = waiting ? Math.min(kind.deadlineMs, figures.slowTimeoutWaitMs) : figures.slowHoldMs;
      const port = kind.port === 'plain' ? plain.port : tls.port;
      return sendRaw(kind.pieces(Math.ceil(timeoutMs / PAUSE_MS) + 5), { port, timeoutMs, pauseMs: PAUSE_MS }).then(
        (outcome) => ({ kind, outcome }),
      );
    });
    // Let every slow connection open and start before the normal clients are timed beside them.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const until = performance.now() + figures.slowHoldMs;
    const [plainClient, tlsClient] = await Promise.all([normalClient(plainGet, until), normalClient(httpsGet, until)]);
    const ends = await Promise.all(slow);
    agent.destroy();

    /** Per kind: how its connections ended, and when the last of them did. */
    const byKind = new Map<string, { ends: Map<string, number>; lastMs: number }>();
    for (const { kind, outcome } of ends) {
      const entry = byKind.get(kind.name) ?? { ends: new Map<string, number>(), lastMs: 0 };
      const end = endOf(outcome);
      entry.ends.set(end, (entry.ends.get(end) ?? 0) + 1);
      entry.lastMs = Math.max(entry.lastMs, outcome.ms);
      byKind.set(kind.name, entry);
    }
    const nonJson = ends.filter(({ outcome }) => endOf(outcome).endsWith('non-JSON')).length;
    const held = ends.filter(({ outcome }) => outcome.kind === 'hang').length;
    const clients = { plain: plainClient, tls: tlsClient };
    console.log(
      summaryLine('slow clients', {
        slow: ends.length,
        'held ms': figures.slowHoldMs,
        waited: waiting ? `${Math.round((performance.now() - started) / 1000)} s` : 'no',
        'plain answered': plainClient.answered,
        'plain failed': plainClient.failed.length,
        'plain p99 ms': quantile(plainClient.latencies, 0.99).toFixed(1),
        'plain max ms': Math.max(...plainClient.latencies).toFixed(1),
        'tls answered': tlsClient.answered,
        'tls failed': tlsClient.failed.length,
        'tls p99 ms': quantile(tlsClient.latencies, 0.99).toFixed(1),
        'tls max ms': Math.max(...tlsClient.latencies).toFixed(1),
        'non-JSON': nonJson,
        held: waiting ? held : 'not waited for',
      }),
    );
    for (const [name, entry] of byKind)
      console.log(
        `  ${name}: ${[...entry.ends].map(([end, count]) => `${end} x${count}`).join(', ')}, the last after ${(entry.lastMs / 1000).toFixed(1)} s`,
      );

    for (const [port, client] of Object.entries(clients)) {
      expect(client.failed, `the normal ${port} client's failures`).toEqual([]);
      expect(client.answered, `the normal ${port} client's answers`).toBeGreaterThan(0);
      // Served as usual: slow connections cost the event loop nothing while they wait.
      expect(quantile(client.latencies, 0.99), `the normal ${port} client's p99 (ms)`).toBeLessThan(1_000);
    }
    expect(nonJson, 'slow connections answered without JSON').toBe(0);
    if (waiting) {
      const stillHeld = ends.filter(({ outcome }) => outcome.kind === 'hang').map(({ kind }) => kind.name);
      expect([...new Set(stillHeld)], 'kinds of slow connection held past their deadline').toEqual([]);
    }
  });
});
