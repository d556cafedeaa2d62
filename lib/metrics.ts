import { Registry, collectDefaultMetrics } from 'prom-client';

export const METRIC_PREFIX = 'trawler_';

/**
 * prom-client's default collectors include gauges named `*_total`, which Prometheus reserves for
 * counters (`promtool check metrics` refuses them); their per-type gauges without the suffix stay.
 */
const MISNAMED_DEFAULT_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** One registry per process, with the default process metrics under the common prefix. */
export function createRegistry(program: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ program });
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  for (const name of MISNAMED_DEFAULT_GAUGES) registry.removeSingleMetric(`${METRIC_PREFIX}${name}`);
  return registry;
}
