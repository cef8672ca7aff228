import { afterEach, describe, expect, it } from 'vitest';
import { loadContract } from '../contract.js';
import { startReceiver, type CallbackReceiver } from './receiver.js';

const contract = loadContract();
const webhook = contract.model.webhooks[0];
if (!webhook) throw new Error('the contract has no webhook');
const TOKEN = 'cbtok_receiver_test';

let receiver: CallbackReceiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

async function start(
  options: { publicUrl?: string; maxBodyBytes?: number; host?: string } = {},
): Promise<CallbackReceiver> {
  receiver = await startReceiver({ contract, host: options.host ?? '127.0.0.1', port: 0, token: TOKEN, ...options });
  return receiver;
}

/** `token` null sends no token header. */
const send = async (url: string, body: string, token: string | null = TOKEN, method = 'POST'): Promise<number> => {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token === null ? {} : { [webhook.tokenHeader]: token }) },
    ...(method === 'POST' ? { body } : {}),
  });
  await response.arrayBuffer();
  return response.status;
};

describe('the callback receiver', () => {
  it('records a delivery, judges its token without keeping it, and acknowledges', async () => {
    const r = await start();
    expect(await send(r.callbackUrl(webhook.operationId, 'k1'), '{"a":1}')).toBe(200);
    const [delivery] = r.deliveries();
    expect(delivery).toMatchObject({
      seq: 0,
      method: 'POST',
      json: { a: 1 },
      answered: 200,
      identified: { webhook: webhook.operationId, by: 'path', key: 'k1' },
    });
    expect(delivery?.token[webhook.tokenHeader]).toBe('match');
    expect(JSON.stringify(delivery)).not.toContain(TOKEN);
  });

  it.each([
    ['a wrong token', 'nope', 'mismatch'],
    ['no token', null, 'missing'],
  ])('tells %s apart', async (_name, token, verdict) => {
    const r = await start();
    await send(`${r.publicUrl}/x`, '{}', token);
    expect(r.deliveries()[0]?.token[webhook.tokenHeader]).toBe(verdict);
  });

  it('keeps bodies that are not JSON or too large, as such', async () => {
    const r = await start({ maxBodyBytes: 10 });
    await send(`${r.publicUrl}/x`, 'not json');
    await send(`${r.publicUrl}/x`, JSON.stringify({ long: 'x'.repeat(50) }));
    await send(`${r.publicUrl}/x`, '', TOKEN, 'GET');
    const [notJson, tooLarge, get] = r.deliveries();
    expect(notJson).toMatchObject({ bodyText: 'not json', tooLarge: false });
    expect(notJson?.json).toBeUndefined();
    expect(tooLarge).toMatchObject({ tooLarge: true });
    expect(get).toMatchObject({ method: 'GET' });
  });

  it('fails the first attempts of each matching body, then acknowledges', async () => {
    const r = await start();
    r.failFirst((d) => d.path.endsWith('/fail'), 2);
    const url = `${r.publicUrl}/fail`;
    const statuses = [
      await send(url, '{"n":1}'),
      await send(url, '{"n":1}'),
      await send(url, '{"n":2}'),
      await send(url, '{"n":1}'),
      await send(`${r.publicUrl}/other`, '{"n":1}'),
    ];
    expect(statuses).toEqual([500, 500, 500, 200, 200]);
  });

  it('waits for a delivery, returns one already received, and gives up after the timeout', async () => {
    const r = await start();
    const coming = r.waitFor((d) => d.path === '/later', 2000);
    await send(`${r.publicUrl}/later`, '{}');
    expect((await coming)?.path).toBe('/later');
    expect((await r.waitFor((d) => d.path === '/later', 10))?.path).toBe('/later');
    expect(await r.waitFor((d) => d.path === '/never', 50)).toBeUndefined();
  });

  it('releases waiters when it closes', async () => {
    const r = await start();
    const waiting = r.waitFor(() => false, 60_000);
    await r.close();
    receiver = undefined;
    expect(await waiting).toBeUndefined();
  });

  it.each([
    [
      'a public URL without its trailing slash',
      { publicUrl: 'https://hooks.example.test/base/' },
      /^https:\/\/hooks\.example\.test\/base$/,
    ],
    ['a wildcard host as loopback', { host: '0.0.0.0' }, /^http:\/\/127\.0\.0\.1:\d+$/],
  ])('uses %s', async (_name, options, want) => {
    const r = await start(options);
    expect(r.publicUrl).toMatch(want);
    expect(r.callbackUrl('ewalletPayment', 'k')).toBe(`${r.publicUrl}/callbacks/ewalletPayment/k`);
  });
});
