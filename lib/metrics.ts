import { Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'trawler_';

/** One registry per process, with the default process metrics under the common prefix. */
export function createRegistry(program: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ program });
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
