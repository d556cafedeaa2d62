import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { METRIC_PREFIX } from '../lib/metrics.js';
import { ENGINE_NAMES } from '../lib/protocol/index.js';
import { MICRO_PER_CREDIT } from '../lib/billing/prices.js';
import { readBatchBacklog } from '../lib/store/batch/backlog.js';
import type { Queryable } from '../lib/store/db.js';
import type { ExitPool } from '../lib/proxy-pool/exit-pool.js';
import type { WorkerDirectory } from './worker-directory.js';

export interface GatewayMetrics {
  requests: Counter<'route' | 'method' | 'status'>;
  duration: Histogram<'route'>;
  scrapes: Counter<'engine' | 'outcome'>;
  /** Credits (not micro-credits: Prometheus wants base units) charged, by serving engine. */
  creditsCharged: { inc(labels: { engine: string }, micro: number): void };
  cacheWriteFailures: Counter;
  /** Uses of managed pool exits by what they said of the exit; `exit` is a configured exit id (bounded by the pool file). */
  exitUses: Counter<'tier' | 'exit' | 'outcome'>;
  /** Requests answered 503 EXHAUSTED by the managed pool, by requested tier. */
  exitsExhausted: Counter<'tier'>;
  /** Changed pool files read (watch or SIGHUP): `applied`, or `rejected` (the pools in use stay). */
  poolFileReloads: Counter<'result'>;
  /** 1 when the last changed pool file read was applied, 0 when it was refused (Prometheus's own config reload gauge's meaning). */
  poolFileValid: Gauge;
  /** Remote-browser connections open on this gateway, by engine. */
  browserOpen: Gauge<'engine'>;
  /** Remote-browser connections ended, by engine and end reason (client, ttl, idle, browser, worker, shutdown). */
  browserConnections: Counter<'engine' | 'reason'>;
}

/** What the gauges read when Prometheus scrapes; each gateway replica reports the same totals. */
export interface GatewayGaugeSources {
  directory: WorkerDirectory;
  db: Queryable;
  exitPool: ExitPool | null;
}

/** Labels are bounded: route templates, engines and outcomes, never URLs or ids. */
export function createGatewayMetrics(registry: Registry, sources: GatewayGaugeSources): GatewayMetrics {
  const registers = [registry];
  const credits = new Counter({ name: `${METRIC_PREFIX}credits_charged_total`, help: 'Credits charged, by serving engine.', labelNames: ['engine'], registers });
  registerPoolGauges(registry, sources.directory);
  registerBatchGauges(registry, sources.db);
  registerExitGauge(registry, sources.exitPool);
  return {
    requests: new Counter({ name: `${METRIC_PREFIX}http_requests_total`, help: 'HTTP requests answered.', labelNames: ['route', 'method', 'status'], registers }),
    duration: new Histogram({ name: `${METRIC_PREFIX}http_request_duration_seconds`, help: 'HTTP request wall time.', labelNames: ['route'], buckets: [0.005, 0.025, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    browserOpen: new Gauge({ name: `${METRIC_PREFIX}browser_connections_open`, help: 'Remote-browser connections open on this gateway, by engine.', labelNames: ['engine'], registers }),
    browserConnections: new Counter({ name: `${METRIC_PREFIX}browser_connections_total`, help: 'Remote-browser connections ended, by engine and end reason.', labelNames: ['engine', 'reason'], registers }),
    scrapes: new Counter({ name: `${METRIC_PREFIX}scrapes_total`, help: 'Scrapes by serving engine and outcome (success, cache_hit or the error code).', labelNames: ['engine', 'outcome'], registers }),
    creditsCharged: { inc: (labels, micro) => credits.inc(labels, micro / MICRO_PER_CREDIT) },
    cacheWriteFailures: new Counter({ name: `${METRIC_PREFIX}cache_write_failures_total`, help: 'Scrape results the cache could not store (the scrape still answered).', registers }),
    exitUses: new Counter({ name: `${METRIC_PREFIX}proxy_exit_uses_total`, help: 'Uses of managed pool exits by tier, exit id and outcome (ok, ban, dead, auth, neutral).', labelNames: ['tier', 'exit', 'outcome'], registers }),
    exitsExhausted: new Counter({ name: `${METRIC_PREFIX}proxy_exhausted_total`, help: 'Requests the managed pool answered with 503 EXHAUSTED, by requested tier.', labelNames: ['tier'], registers }),
    poolFileReloads: new Counter({ name: `${METRIC_PREFIX}proxy_pool_file_reloads_total`, help: 'Changed PROXY_POOLS_FILE contents read, by result (applied, rejected: the pools in use stay).', labelNames: ['result'], registers }),
    poolFileValid: poolFileValidGauge(registry, sources.exitPool !== null),
  };
}

function poolFileValidGauge(registry: Registry, configured: boolean): Gauge {
  const gauge = new Gauge({
    name: `${METRIC_PREFIX}proxy_pool_file_last_reload_successful`,
    help: 'Whether the last PROXY_POOLS_FILE contents read were applied (1) or refused, keeping the pools in use (0).',
    // Not exposed without a pool file: a 0 there would read as a refused file.
    registers: configured ? [registry] : [],
  });
  gauge.set(1);
  return gauge;
}

/**
 * One finished scrape, a request's or a batch item's: `outcome` is `success`, `cache_hit` or the error
 * code; a success also adds what it was charged to the credits counter.
 */
export function countFinishedScrape(metrics: GatewayMetrics, engine: string, outcome: string, chargedMicro = 0): void {
  metrics.scrapes.inc({ engine, outcome });
  if (outcome === 'success') metrics.creditsCharged.inc({ engine }, chargedMicro);
}

/** Live pool membership as this gateway sees it on the bus (heartbeats), every engine listed. */
function registerPoolGauges(registry: Registry, directory: WorkerDirectory): void {
  const gauge = (name: string, help: string, pick: (totals: { workers: number; capacity: number; in_flight: number }) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}${name}`,
      help,
      labelNames: ['engine'],
      registers: [registry],
      collect() {
        const summary = directory.summary();
        for (const engine of ENGINE_NAMES) this.set({ engine }, pick(summary[engine]));
      },
    });
  gauge('pool_workers', 'Live workers taking work, by engine, as the gateway sees them.', (t) => t.workers);
  gauge('pool_capacity', 'Concurrent job slots of the live workers, by engine.', (t) => t.capacity);
  gauge('pool_jobs_in_flight', 'Jobs the live workers hold, by engine.', (t) => t.in_flight);
}

function registerBatchGauges(registry: Registry, db: Queryable): void {
  let last: Awaited<ReturnType<typeof readBatchBacklog>> | null = null;
  // One store read per scrape, shared by both gauges. A failed or slow read (over BACKLOG_READ_MS)
  // keeps the previous values, so /metrics answers within Prometheus's scrape timeout anyway.
  let pending: Promise<void> | null = null;
  const refresh = () =>
    (pending ??= withinMs(readBatchBacklog(db), BACKLOG_READ_MS)
      .then((backlog) => void (backlog && (last = backlog)), () => undefined)
      .finally(() => (pending = null)));
  new Gauge({
    name: `${METRIC_PREFIX}batch_items`,
    help: 'Batch items not finished, by status (queued, running), across all tenants.',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      await refresh();
      this.set({ status: 'queued' }, last?.queued ?? 0);
      this.set({ status: 'running' }, last?.running ?? 0);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}batch_jobs_active`,
    help: 'Batch jobs queued, running or cancelling, across all tenants.',
    registers: [registry],
    async collect() {
      await refresh();
      this.set(last?.activeJobs ?? 0);
    },
  });
}

/** Managed pool exits by tier and state (healthy, cooling, auth_failed), from this replica's copy of the shared health. */
function registerExitGauge(registry: Registry, pool: ExitPool | null): void {
  new Gauge({
    name: `${METRIC_PREFIX}proxy_exits`,
    help: 'Managed proxy pool exits by tier and state (healthy, cooling, auth_failed).',
    labelNames: ['tier', 'state'],
    registers: [registry],
    collect() {
      if (!pool) return;
      const counts = new Map<string, number>();
      for (const tier of new Set(pool.candidates.map((c) => c.exit.tier))) {
        for (const state of ['healthy', 'cooling', 'auth_failed']) counts.set(`${tier} ${state}`, 0);
      }
      for (const exit of pool.snapshot()) counts.set(`${exit.tier} ${exit.state}`, (counts.get(`${exit.tier} ${exit.state}`) ?? 0) + 1);
      for (const [key, value] of counts) {
        const [tier, state] = key.split(' ');
        this.set({ tier, state }, value);
      }
    },
  });
}

const BACKLOG_READ_MS = 2000;

/** The promise's value, or null once `ms` pass first. */
async function withinMs<T>(work: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
