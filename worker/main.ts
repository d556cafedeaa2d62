import type { Registry } from 'prom-client';
import type { Bus } from '../lib/bus/bus.js';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/log.js';
import type { EngineName } from '../lib/protocol/index.js';
import { ContentPool } from './content/pool.js';
import { EgressGuard } from './egress/guard.js';
import { createEngine } from './engines.js';
import { remoteBrowserHost } from './browser/remote/host-setup.js';
import type { RemoteBrowserHost } from './browser/remote/browser-host.js';
import { WorkerNode } from './worker-node.js';

export interface WorkerDeps {
  config: Config;
  bus: Bus;
  logger: Logger;
  registry: Registry;
  version: string;
}

export interface RunningWorkers {
  nodes: WorkerNode[];
  stop(graceMs: number): Promise<void>;
}

/** Starts one pool member per engine, sharing one egress guard and one content thread pool. */
export async function startWorkers(deps: WorkerDeps, engines: EngineName[]): Promise<RunningWorkers> {
  const policy = { allowLoopback: deps.config.TRAWLER_ALLOW_LOOPBACK_TARGETS };
  const guard = await EgressGuard.start({ policy });
  const content = new ContentPool({ convertInlineMaxChars: deps.config.CONTENT_INLINE_MAX_CHARS });
  const nodes: WorkerNode[] = [];
  const hosts: RemoteBrowserHost[] = [];
  try {
    for (const name of engines) {
      let host: RemoteBrowserHost | null = null;
      const node = new WorkerNode({
        browserSessions: () => host?.sessions() ?? null,
        bus: deps.bus,
        engine: createEngine(name, { config: deps.config, guard, policy }),
        content,
        logger: deps.logger.child({ engine: name }),
        registry: deps.registry,
        pool: deps.config.WORKER_POOL,
        version: deps.version,
        heartbeatIntervalMs: deps.config.HEARTBEAT_INTERVAL_MS,
      });
      host = remoteBrowserHost(name, { ...deps, guard }, node.id);
      await node.start();
      nodes.push(node);
      if (host) {
        await host.start();
        hosts.push(host);
      }
    }
  } catch (error) {
    await Promise.allSettled(hosts.map((h) => h.stop()));
    await Promise.allSettled(nodes.map((n) => n.stop(0)));
    await guard.close();
    await content.close();
    throw error;
  }
  return {
    nodes,
    async stop(graceMs: number) {
      await Promise.allSettled([...hosts.map((host) => host.stop()), ...nodes.map((node) => node.stop(graceMs))]);
      await guard.close();
      await content.close();
    },
  };
}
