// `npm start` / `payments-sandbox`: the sandbox on 127.0.0.1:3000 (or as configured), with its docs. Prints
// where it is and the keys to use; SIGINT, SIGTERM or SIGHUP stop it cleanly (no new requests, callback
// dispatcher stopped, store closed, data directory unlocked), so an acknowledged write or a pending callback
// is never cut off halfway and the next sandbox can open the same directory.
import { fileURLToPath } from 'node:url';
import { refuse, UsageError } from '@payments-contract/server/runtime/command-line';
import { onStopSignal } from '@payments-contract/server/runtime/stop-signals';
import type { SandboxApp } from './app.js';
import { runCommand } from './cli/commands.js';
import {
  COMMAND,
  DEFAULT_LIVE_SECRET_KEY,
  DEFAULT_TEST_SECRET_KEY,
  parseConfig,
  type SandboxConfig,
} from './config.js';
import type { SandboxLogger } from './observability/index.js';
import { DASHBOARD_PATH } from './dashboard/pages.js';
import type { Listening } from './server.js';
import { backendOf, storeStartupError } from './store/open-store.js';

export interface RunningSandbox {
  url: string;
  app: SandboxApp;
  listening: Listening;
  logger: SandboxLogger;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Build (if stale) and serve the Redoc pages. Default true. */
  docs?: boolean;
  log?: (line: string) => void;
  /** The lines per request and per callback attempt; default: on stdout as LOG_FORMAT and LOG_LEVEL say. */
  logger?: SandboxLogger;
}

/** Starts the sandbox described by `config` and serves it. */
export async function startSandbox(config: SandboxConfig, options: StartOptions = {}): Promise<RunningSandbox> {
  const log = options.log ?? ((line: string) => console.log(line));
  // Loaded here, not by main's imports: the app, the site and the logger take longer to load than Node.js takes
  // to start, which --help, --version, a usage mistake and the commands that talk to a running sandbox need not
  // wait for.
  const [{ createSandboxApp }, { createSite, DOCS, listen, readDocs, readDocsLibrary }, { createLogger }] =
    await Promise.all([import('./app.js'), import('./server.js'), import('./observability/index.js')]);
  // The pages come built with the contract package; without them the API still serves.
  const docs: { service?: string; control?: string; library?: string } = {};
  if (options.docs !== false) {
    docs.library = readDocsLibrary();
    for (const which of ['service', 'control'] as const) {
      const page = readDocs(DOCS[which]);
      if (page === undefined)
        log(
          `warning: no docs at ${which === 'service' ? '/docs' : '/sandbox/docs'}: ${DOCS[which].page} is missing (npm run docs builds it)`,
        );
      else docs[which] = page;
    }
  }
  const logger = options.logger ?? createLogger({ format: config.logFormat, level: config.logLevel });
  const app = await createSandboxApp(config, { onError: (error) => console.error('sandbox:', error), logger });
  let listening: Listening;
  try {
    listening = await listen(
      createSite({
        service: app.service,
        control: app.control,
        docs,
        health: () => app.health(),
        observer: app.observer,
      }),
      {
        host: config.host,
        port: config.port,
        tls: config.tls,
        publicHosts: config.publicHosts,
        deadlines: config.deadlines,
        refused: (request) => app.observer.refused(request),
        onError: (error) => console.error('sandbox:', error),
      },
    );
  } catch (error) {
    await app.close();
    throw error;
  }
  app.start();
  let stopping: Promise<void> | undefined;
  return {
    url: listening.url,
    app,
    listening,
    logger,
    stop: () =>
      (stopping ??= (async () => {
        await listening.close();
        await app.close();
        logger.flush();
      })()),
  };
}

/** A secret the operator chose is theirs to know: printed masked. The built-in development keys are public. */
function shown(value: string, isDefault: boolean): string {
  return isDefault ? value : `${value.slice(0, value.indexOf('_', 3) + 1)}…${value.slice(-4)} (as configured)`;
}

export function describeSandbox(url: string, config: SandboxConfig): string {
  const merchant = config.merchants[0]!;
  const defaultTest = merchant.keys.test === DEFAULT_TEST_SECRET_KEY;
  const defaultLive = merchant.keys.live === DEFAULT_LIVE_SECRET_KEY;
  const tokenIsDefault = !config.given.has('callback-token');
  const perKind = Object.entries(config.callbackUrls).map(
    ([setting, value]) => `\n  ${`${setting}:`.padEnd(22)}${value}`,
  );
  return [
    `Payments sandbox listening on ${url}`,
    `  base URL:             ${url}`,
    `  dashboard:            ${url}${DASHBOARD_PATH}   (open it in a browser, with a secret key below)`,
    `  test secret key:      ${shown(merchant.keys.test, defaultTest)}`,
    `  live secret key:      ${shown(merchant.keys.live, defaultLive)}`,
    `  callback token:       ${shown(merchant.callbackTokens.test, tokenIsDefault)} (test mode, sent as x-callback-token)`,
    `  callback URL:         ${config.callbackUrl ?? '(none: set SANDBOX_CALLBACK_URL or PATCH /sandbox/settings, or run payments-sandbox listen --forward-to URL where your receiver is)'}${perKind.join('')}`,
    `  docs:                 ${url}/docs   (control API: ${url}/sandbox/docs)`,
    `  contract:             ${url}/openapi.json   (control API: ${url}/sandbox/openapi.json)`,
    `  data:                 ${backendOf(config.store).describe(config)}`,
    `  log:                  a line per request and per callback attempt on stdout (${config.logFormat}, level ${config.logLevel}); recent requests: ${url}/sandbox/requests`,
    `  health:               ${url}/health`,
    `  merchants:            ${config.merchants.length}`,
    `Try: curl -s -u ${defaultTest ? merchant.keys.test : '<test secret key>'}: ${url}/balance`,
    'Ctrl-C stops it.',
  ].join('\n');
}

export async function main(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<number> {
  // `trigger`, `events` (and so on) talk to a running sandbox; anything else starts one.
  const command = await runCommand(argv, env);
  if (command !== undefined) return command;
  let config: SandboxConfig;
  try {
    const parsed = parseConfig({ argv, env });
    if (parsed.kind === 'print') {
      console.log(parsed.text);
      return 0;
    }
    config = parsed.config;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    return refuse(COMMAND, error);
  }
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox(config);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      console.error(
        `payments-sandbox: cannot listen on ${config.host}:${config.port} (${code}); choose another with PORT or --port.`,
      );
      return 2;
    }
    const storeError = storeStartupError(error);
    if (storeError !== undefined) {
      console.error(`payments-sandbox: ${storeError}`);
      return 2;
    }
    throw error;
  }
  // With JSON lines on stdout, the banner is for the person at the terminal (stderr), and stdout says where
  // the sandbox listens in a line of its own kind.
  if (config.logFormat === 'json') {
    console.error(describeSandbox(sandbox.url, config));
    // The URL is followed by a space, so tools reading `listening on <url>` find it in this line too.
    sandbox.logger.info(`Payments sandbox listening on ${sandbox.url} (Ctrl-C stops it)`, { url: sandbox.url });
  } else console.log(describeSandbox(sandbox.url, config));
  return new Promise<number>((resolve) => {
    onStopSignal((signal) => {
      // A JSON-lines stdout stays JSON lines to the end.
      if (config.logFormat === 'json') sandbox.logger.info(`${signal}: stopping the sandbox...`, { signal });
      else console.log(`${signal}: stopping the sandbox...`);
      sandbox.stop().then(
        () => resolve(0),
        (error: unknown) => {
          console.error('payments-sandbox: stopping failed:', error);
          resolve(1);
        },
      );
    });
  });
}

// Run when executed (tsx sandbox/main.ts, the bin), not when imported by tests or the bench.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(`payments-sandbox: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
      process.exit(1);
    },
  );
}
