// One benchmark target in a process of its own, so it shares no event loop with the load generator or the
// other targets: `node --import tsx generator/bench-server/server-process.ts <target>` listens on a free
// loopback port and prints `listening on <url>`.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Each target's server, loaded only in its own process (the peers' start-up reads the contract with the generator). */
export const TARGETS = {
  generated: async () => (await import('./targets/generated.js')).createGeneratedServer(),
  fastify: async () => (await import('./targets/fastify.js')).createFastifyServer(),
  hono: async () => (await import('./targets/hono.js')).createHonoServer(),
  bare: async () => (await import('./targets/bare.js')).createBareServer(),
} as const satisfies Record<string, () => Promise<Server>>;

export type TargetName = keyof typeof TARGETS;

export const isTargetName = (name: string): name is TargetName => Object.hasOwn(TARGETS, name);

async function main(name: string | undefined): Promise<void> {
  if (name === undefined || !isTargetName(name))
    throw new Error(`usage: server-process.ts <${Object.keys(TARGETS).join('|')}>`);
  const server = await TARGETS[name]();
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  // The benchmark asks for the CPU time this process has used (microseconds, user + system): CPU time per
  // request is a figure other work on a shared machine barely moves, unlike requests per second.
  process.on('message', (message) => {
    if (message === 'cpu-usage') process.send?.(process.cpuUsage());
  });
  process.once('SIGTERM', () => server.close(() => process.exit(0)));
}

if (import.meta.url === `file://${process.argv[1]}`) await main(process.argv[2]);
