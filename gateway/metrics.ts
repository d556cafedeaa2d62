import { Counter, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../lib/metrics.js';

export interface GatewayMetrics {
  requests: Counter<'route' | 'method' | 'status'>;
  duration: Histogram<'route'>;
  scrapes: Counter<'engine' | 'outcome'>;
  creditsCharged: Counter<'engine'>;
  cacheWriteFailures: Counter;
}

/** Labels are bounded: route templates, engines and outcomes, never URLs or ids. */
export function createGatewayMetrics(registry: Registry): GatewayMetrics {
  return {
    requests: new Counter({ name: `${METRIC_PREFIX}http_requests_total`, help: 'HTTP requests answered', labelNames: ['route', 'method', 'status'], registers: [registry] }),
    duration: new Histogram({ name: `${METRIC_PREFIX}http_request_duration_seconds`, help: 'HTTP request wall time', labelNames: ['route'], buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers: [registry] }),
    scrapes: new Counter({ name: `${METRIC_PREFIX}scrapes_total`, help: 'Scrapes by serving engine and outcome', labelNames: ['engine', 'outcome'], registers: [registry] }),
    creditsCharged: new Counter({ name: `${METRIC_PREFIX}credits_charged_micro_total`, help: 'Micro-credits charged', labelNames: ['engine'], registers: [registry] }),
    cacheWriteFailures: new Counter({ name: `${METRIC_PREFIX}cache_write_failures_total`, help: 'Scrape results the cache could not store (the scrape still answered)', registers: [registry] }),
  };
}
