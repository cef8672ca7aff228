// Several sandboxes in this process over one PostgreSQL database, each with its own store connections, clock
// cache, dispatcher and port, behind a round-robin front: the shape of a cluster, for tests that drive it
// through HTTP (separate processes are in process-cluster.ts, for tests that kill one).
import { createSandboxApp, type SandboxApp, type SandboxAppOptions } from '../../app.js';
import { defaultConfig, type SandboxConfig } from '../../config.js';
import { createSite, listen, type Listening } from '../../server.js';
import { startRoundRobin, type RoundRobin } from './round-robin.js';

export interface ClusterInstance {
  app: SandboxApp;
  listening: Listening;
}

export interface InProcessCluster {
  /** The round-robin front. */
  url: string;
  front: RoundRobin;
  instances: ClusterInstance[];
  config: SandboxConfig;
  stop(): Promise<void>;
}

export interface InProcessClusterOptions {
  databaseUrl: string;
  /** Default 2. */
  instances?: number;
  config?: Partial<SandboxConfig>;
  /** The app options of instance `index` (a fetch that counts its callbacks, say). */
  appOptions?: (index: number) => SandboxAppOptions;
}

export async function startInProcessCluster(options: InProcessClusterOptions): Promise<InProcessCluster> {
  const base = defaultConfig({ host: '127.0.0.1', port: 0, ...options.config });
  const config: SandboxConfig = {
    ...base,
    store: 'postgres',
    database: { ...base.database, url: options.databaseUrl },
  };
  const instances: ClusterInstance[] = [];
  let front: RoundRobin | undefined;
  const stop = async () => {
    await front?.close();
    for (const { listening } of instances) await listening.close();
    await Promise.all(instances.map(({ app }) => app.close()));
  };
  try {
    for (let index = 0; index < (options.instances ?? 2); index++) {
      const app = await createSandboxApp(config, options.appOptions?.(index) ?? {});
      let listening: Listening;
      try {
        listening = await listen(
          createSite({
            service: app.service,
            control: app.control,
            observer: app.observer,
            health: () => app.health(),
          }),
          { host: config.host, port: 0 },
        );
      } catch (error) {
        await app.close();
        throw error;
      }
      instances.push({ app, listening });
      await app.start();
    }
    front = await startRoundRobin(instances.map(({ listening }) => listening.url));
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: front.url, front, instances, config, stop };
}
