// A broken target yields failures against the operations that broke, never a crash or a hang: an answer
// that never comes, a body that is not JSON, a huge body, a dropped connection, a refused connection.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationModel } from '@payments-contract/contract/model/types';
import { main } from '../cli.js';
import { loadContract } from '../contract.js';
import { freePort } from '../mock/prism.js';
import { runConformance } from '../run.js';
import type { CheckResult, RunOptions, RunSummary } from '../types.js';
import { startTarget, type Override, type Target } from './target.js';

const contract = loadContract();
const KEY = 'sk_test_broken';
// Long enough that a conforming answer is never late on a loaded 2-core machine (400 ms was now and then, and
// 1,500 ms once at a load of 8 with helpers' benchmarks beside the unit batch).
const TIMEOUT_MS = 3_000;
const options = (baseUrl: string): RunOptions => ({
  baseUrl,
  apiKey: KEY,
  profile: 'stateless',
  only: ['positive_data', 'response_conformance'],
  timeoutMs: TIMEOUT_MS,
  concurrency: 8,
  strict: false,
});
const [hanging, html, huge, dropped, textError] = contract.model.operations;
const HUGE = Buffer.alloc(2 * 1024 * 1024, 'a');

const breakage: Override = ({ operation, authorized }, response) => {
  if (!authorized) return undefined;
  switch (operation) {
    case hanging:
      return 'hang';
    case html:
      return { status: 200, contentType: 'text/html', body: '<html><body>Welcome to nginx</body></html>' };
    case huge:
      return { status: 200, body: Buffer.concat([Buffer.from('{"padding":"'), HUGE, Buffer.from('"}')]) };
    case dropped:
      response.socket?.destroy();
      return 'handled';
    case textError:
      return { status: 500, contentType: 'text/plain', body: 'Internal Server Error' };
    default:
      return undefined;
  }
};

let target: Target;
let summary: RunSummary;
let elapsed: number;

beforeAll(async () => {
  target = await startTarget(contract, KEY, breakage);
  const started = performance.now();
  summary = await runConformance(options(target.url));
  elapsed = performance.now() - started;
}, 30_000);

afterAll(async () => {
  await target?.close();
});

function conformanceOf(operation: OperationModel | undefined): CheckResult | undefined {
  return summary.results.find((r) => r.check === 'response_conformance' && r.subject === operation?.operationId);
}

describe('a broken target', () => {
  it.each([
    ['an answer that never comes', () => hanging, new RegExp(`no answer within ${TIMEOUT_MS} ms`)],
    ['an HTML body', () => html, /not application\/json|body is not JSON/],
    ['a body over 1 MiB', () => huge, /larger than \d+ bytes/],
    ['a dropped connection', () => dropped, /fetch failed|socket|closed|terminated/i],
    ['a plain-text 500', () => textError, /the 500 body is not JSON/],
  ])('%s is a failure of that operation', (_name, operation, message) => {
    const result = conformanceOf(operation());
    expect(result?.outcome).toBe('failed');
    expect(result?.findings.some((f) => message.test(f.message))).toBe(true);
  });

  it('blames no other operation, and the run stays bounded by the timeout', () => {
    const broken = new Set([hanging, html, huge, dropped, textError].map((o) => o?.operationId));
    const blamed = summary.results
      .filter((r) => r.check === 'response_conformance' && r.outcome === 'failed')
      .map((r) => r.subject);
    expect(blamed.sort()).toEqual([...broken].sort());
    expect(elapsed).toBeLessThan(15_000);
  });

  it('a refused connection fails every check, without crashing', async () => {
    const port = await freePort();
    const refused = await runConformance(options(`http://127.0.0.1:${port}`));
    expect(refused.results.length).toBeGreaterThan(0);
    expect(refused.results.filter((r) => r.outcome !== 'failed')).toEqual([]);
    expect(refused.results[0]?.findings[0]?.status).toBe(0);
  });

  it('the CLI exits 2 when the target accepts connections but never answers', async () => {
    const silent = await startTarget(contract, KEY, () => 'hang');
    let err = '';
    try {
      const code = await main(['--base-url', silent.url, '--api-key', KEY, '--timeout-ms', String(TIMEOUT_MS)], {
        stdout: { write: () => true },
        stderr: { write: (text: string) => (err += text) },
        env: {},
      });
      expect(code).toBe(2);
      expect(err).toMatch(/does not answer .*no answer within/);
    } finally {
      await silent.close();
    }
  });
});
