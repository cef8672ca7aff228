// `npm run mock`: the bundled contract served by Prism behind the generated router, on 127.0.0.1:4010 unless
// --host/--port say otherwise. SIGINT, SIGTERM and SIGHUP stop both; if Prism dies, so does the mock, and if
// the mock dies, even by SIGKILL, so does Prism (prism.ts). The mock (serve.ts) is loaded only once the command
// line is read, so --help, --version and a usage mistake answer without loading the router and its validators.
import {
  readCommandLine,
  refuse,
  STANDARD_USAGE_LINES,
  UsageError,
} from '@payments-contract/server/runtime/command-line';
import { onStopSignal } from '@payments-contract/server/runtime/stop-signals';

const USAGE = `Usage: npm run mock -- [--host HOST] [--port PORT]

Serves generated/contract/openapi.json: the generated router validates every request as the contract says, and
Prism answers the valid ones with the contract's examples (send 'Prefer: code=404' to pick a status).

  --host HOST                address to listen on (default 127.0.0.1)
  --port PORT                port to listen on (default 4010; 0 picks a free one)
${STANDARD_USAGE_LINES}

Example: npm run mock -- --port 4020`;

const COMMAND = {
  name: 'mock',
  usage: USAGE,
  options: { host: { type: 'string' }, port: { type: 'string' } },
  module: import.meta.url,
} as const;

async function main(): Promise<number> {
  const line = readCommandLine(COMMAND, process.argv.slice(2));
  if (typeof line === 'number') return line;
  const { values } = line;
  const port = values.port ?? '4010';
  if (!/^\d{1,5}$/.test(port) || Number(port) > 65535)
    return refuse(COMMAND, new UsageError(`--port must be a port number from 0 to 65535, not "${port}"`));
  const { startMock } = await import('./serve.js');
  const mock = await startMock({
    host: values.host ?? '127.0.0.1',
    port: Number(port),
    onExchange: (exchange) =>
      console.log(
        `${exchange.method} ${exchange.path} -> ${exchange.status}${exchange.forwarded ? '' : ' (refused by the router)'}`,
      ),
  });
  console.log(
    `Mock of the contract listening on ${mock.url} (Prism on ${mock.prismUrl} behind the generated router). Ctrl-C stops it.`,
  );
  return new Promise<number>((resolve) => {
    let stopping = false;
    onStopSignal(() => {
      stopping = true;
      void mock.stop().then(() => resolve(0));
    });
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
