import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSandboxApp } from './app.js';
import { parseConfig } from './config.js';
import { toNodeListener } from '../generated/runtime/node-listener.js';
import { listen, createSite } from './server.js';

const dir = mkdtempSync(join(tmpdir(), 'inproc-'));
const parsed = parseConfig({ env: { DATA_DIR: dir, SANDBOX_CALLBACK_URL: 'http://127.0.0.1:9/cb' } });
if (parsed.kind !== 'config') throw new Error('x');
const app = await createSandboxApp({ ...parsed.config, validateResponses: false });
import { nativeHandlerOf, withNativeHandler } from '../generated/runtime/native-request.js';
const inner = nativeHandlerOf(app.service)!;
let n = 0, total = 0n, syncPart = 0n;
const timed = withNativeHandler(async (r: Request) => app.service(r), async (req) => { const t = process.hrtime.bigint(); const p = inner(req); syncPart += process.hrtime.bigint() - t; const a = await p; total += process.hrtime.bigint() - t; n++; return a; });
setInterval(() => { if (n) console.error('handler avg µs', Number(total) / n / 1000, 'sync', Number(syncPart) / n / 1000, 'n', n); n = 0; total = 0n; syncPart = 0n; }, 2000).unref();
if (process.env.PLAIN) {
  createServer(toNodeListener(timed, { origin: 'http://127.0.0.1:3999' })).listen(3999, '127.0.0.1');
} else {
  await listen(createSite({ service: app.service, control: app.control }), { host: '127.0.0.1', port: 3999 });
}
console.log('up');
process.on('SIGINT', () => process.exit(0));
