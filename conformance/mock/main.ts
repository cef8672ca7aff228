// `npm run mock`: the bundled contract served by Prism behind the generated router, on 127.0.0.1:4010 unless
// --host/--port say otherwise. SIGINT and SIGTERM stop both; if Prism dies, so does the mock.
import { parseArgs } from 'node:util';
import { startMock } from './serve.js';

const USAGE = `Usage: npm run mock -- [--host HOST] [--port PORT]

Serves generated/openapi.json: the generated router validates every request as the contract says, and
Prism answers the valid ones with the contract's examples (send 'Prefer: code=404' to pick a status).

  --host HOST   address to listen on (default 127.0.0.1)
  --port PORT   port to listen on (default 4010)

Example: npm run mock -- --port 4020`;

async function main(): Promise<number> {
  let values: { host?: string; port?: string; help?: boolean };
  try {
    ({ values } = parseArgs({ options: { host: { type: 'string' }, port: { type: 'string' }, help: { type: 'boolean' } }, strict: true }));
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const port = Number(values.port ?? 4010);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not ${values.port ?? ''}\n\n${USAGE}`);
    return 2;
  }
  const mock = await startMock({
    host: values.host ?? '127.0.0.1',
    port,
    onExchange: (exchange) => console.log(`${exchange.method} ${exchange.path} -> ${exchange.status}${exchange.forwarded ? '' : ' (refused by the router)'}`),
  });
  console.log(`Mock of the contract listening on ${mock.url} (Prism on ${mock.prismUrl} behind the generated router). Ctrl-C stops it.`);
  return new Promise<number>((resolve) => {
    let stopping = false;
    const shutdown = (): void => {
      stopping = true;
      void mock.stop().then(() => resolve(0));
    };
    process.once('SIGINT', shutdown);
    process.once('SIGTERM', shutdown);
    void mock.exited.then((code) => {
      if (stopping) return;
      console.error(`Prism exited (${String(code)}); stopping the mock.`);
      void mock.stop().then(() => resolve(1));
    });
  });
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  },
);
