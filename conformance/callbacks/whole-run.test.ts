import { describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { basicAuthorization, createHttpClient, type Exchange, type HttpClient } from '../http.js';
import type { Delivery } from './receiver.js';
import { recordingClient } from './run-log.js';
import { answerPolicy, WHOLE_RUN_KEY } from './whole-run.js';

const contract = loadContract();
const [webhook] = contract.model.webhooks;
if (!webhook) throw new Error('the contract has no webhook');

let seq = 0;
const delivery = (body: string, key: string = WHOLE_RUN_KEY): Delivery => ({
  seq: seq++,
  receivedAt: 0,
  at: '',
  method: 'POST',
  path: '/',
  headers: {},
  token: {},
  bodyText: body,
  tooLarge: false,
  identified: { webhook: webhook.operationId, by: 'path', key },
  answered: 0,
});

describe('answerPolicy', () => {
  it("answers each acknowledging status in turn, and fails the first callback sent to the whole run's URL once", () => {
    const { answer, failed } = answerPolicy(contract, true);
    const first = delivery('a');
    const refused = answer(first);
    expect(refused < 200 || refused > 299).toBe(true);
    expect(failed.get(first.seq)).toBe(refused);
    expect([delivery('a'), delivery('b'), delivery('c'), delivery('d'), delivery('e')].map(answer)).toEqual([
      200, 201, 202, 203, 204,
    ]);
    expect(failed.size).toBe(1);
  });

  it('fails nothing on purpose when the retries could not be brought on, nor a callback sent to a URL of another check', () => {
    expect(answerPolicy(contract, false).answer(delivery('a'))).toBe(200);
    const { answer, failed } = answerPolicy(contract, true);
    expect(answer(delivery('a', 'run-1'))).toBe(200);
    expect(failed.size).toBe(0);
  });
});

describe('recordingClient', () => {
  /** A client that answers every request at once, sending `key` as its valid key. */
  const answering = (key: string): HttpClient => ({
    ...createHttpClient({ baseUrl: 'http://target.test', apiKey: key, timeoutMs: 1000 }),
    send: async (spec) => {
      const headers: Record<string, string> = spec.auth === 'none' ? {} : { authorization: basicAuthorization(key) };
      return {
        request: {
          method: spec.method,
          url: `http://target.test${spec.path}`,
          headers,
          auth: spec.auth === 'none' ? 'none' : 'valid',
        },
        status: 200,
        headers: {},
        bodyText: '',
        durationMs: 0,
      } satisfies Exchange;
    },
    withKey: (other) => answering(other),
  });

  it("logs every exchange with whether the run's own key sent it", async () => {
    const { http, log } = recordingClient(answering('own_key'), 'own_key');
    await http.send({ method: 'GET', path: '/a' });
    await http.withKey('other_key', 'OTHER_KEY').send({ method: 'GET', path: '/b' });
    await http.send({ method: 'GET', path: '/c', auth: 'none' });
    expect(log.exchanges().map((e) => e.sender)).toEqual([
      { own: true },
      { own: false, key: 'OTHER_KEY' },
      { own: false },
    ]);
  });
});
