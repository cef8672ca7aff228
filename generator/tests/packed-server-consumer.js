// A server team's program in plain JavaScript, as generator/packed.test.ts installs it beside the packed
// server and runs it: its own getBalance handler behind the generated router, served by the Node listener
// on a free loopback port, asked with the merchant's key, without a key, and on a route the contract lacks.
// It prints one JSON line per answer: { status, body }.
import { createRouter } from '@payments-contract/server';
import { createNodeServer } from '@payments-contract/server/runtime/node-listener';

const merchant = { id: 'merchant-1', secretKey: 'sk_test_packed_consumer' };
const router = createRouter(
  {
    getBalance: async (_input, { principal }) => ({
      status: 200,
      body: { balance: principal.id === merchant.id ? 4200 : 0 },
    }),
  },
  {
    authenticate: (key) => (key?.username === merchant.secretKey && key.password === '' ? merchant : null),
    validateResponses: true, // the compiled validators run in the installed package too
  },
);
const server = createNodeServer(router, { origin: 'http://127.0.0.1' });
await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
const { port } = server.address();
const base = `http://127.0.0.1:${port}`;
const authorization = `Basic ${Buffer.from(`${merchant.secretKey}:`).toString('base64')}`;
for (const [path, headers] of [
  ['/balance', { authorization }],
  ['/balance', {}],
  ['/no-such-route', { authorization }],
]) {
  const response = await fetch(`${base}${path}`, { headers });
  console.log(JSON.stringify({ status: response.status, body: await response.json() }));
}
server.close();
