import { hostname } from 'node:os';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { encodeJson, type Bus, type BusSubscription, type Decoded } from '../lib/bus/bus.js';
import { ServiceError } from '../lib/errors/index.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/log.js';
import { METRIC_PREFIX } from '../lib/metrics.js';
import {
  HEARTBEAT_TYPE,
  LEAVE_TYPE,
  SCRAPE_RESULT_TYPE,
  ScrapeJobSchema,
  WORKER_HEARTBEAT_SUBJECT,
  WORKER_LEAVE_SUBJECT,
  WORKER_PROBE_SUBJECT,
  engineQueueGroup,
  scrapeSubject,
  type ScrapeJob,
  type ScrapeResult,
  type WorkerHeartbeat,
} from '../lib/protocol/index.js';
import { Cancellation } from './cancellation.js';
import { settlesWithin } from './deadline.js';
import type { Engine } from './engine.js';
import { runJob, type ContentRunner } from './runner.js';
import { Semaphore } from './semaphore.js';

export interface WorkerNodeOptions {
  bus: Bus;
  engine: Engine;
  content: ContentRunner;
  logger: Logger;
  registry: Registry;
  pool: string;
  version: string;
  heartbeatIntervalMs: number;
  /** Remote-browser connections of this engine's relay, when it has one (shown in the heartbeat). */
  browserSessions?: () => { capacity: number; in_use: number } | null;
}

/** One engine's member of its pool: serves jobs from the engine's queue group and announces itself. */
export class WorkerNode {
  readonly id = newId();
  private readonly startedAt = new Date().toISOString();
  private readonly slots: Semaphore;
  private readonly metrics;
  private inFlight = 0;
  private draining = false;
  private jobs: BusSubscription | null = null;
  private probes: BusSubscription | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly aborts = new Set<Cancellation>();
  /** Jobs this worker cut off because its shutdown grace period ran out, not because of their own deadline. */
  private readonly stoppedJobs = new WeakSet<Cancellation>();

  constructor(private readonly options: WorkerNodeOptions) {
    this.slots = new Semaphore(options.engine.capacity);
    this.metrics = workerMetrics(options.registry);
    this.metrics.capacity.set({ engine: options.engine.name }, options.engine.capacity);
    this.metrics.inFlight.set({ engine: options.engine.name }, 0);
  }

  get engineName() {
    return this.options.engine.name;
  }

  async start(): Promise<void> {
    const { bus, engine } = this.options;
    await engine.start();
    this.jobs = bus.serveJson(scrapeSubject(engine.name), engineQueueGroup(engine.name), ScrapeJobSchema, (message) => this.handle(message), this.id);
    this.probes = bus.subscribe(WORKER_PROBE_SUBJECT, () => this.announce());
    this.announce();
    this.heartbeatTimer = setInterval(() => this.announce(), this.options.heartbeatIntervalMs);
    this.heartbeatTimer.unref();
    this.options.logger.info({ worker_id: this.id, engine: engine.name }, 'worker joined');
  }

  /** Stop taking work, finish what is held within `graceMs`, leave the membership, stop the engine. */
  async stop(graceMs: number): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    this.announce();
    const drained = Promise.all([this.jobs?.drain(), this.probes?.drain()]);
    const timedOut = !(await settlesWithin(drained, graceMs));
    if (timedOut) {
      // Aborted jobs still answer (with a timeout failure) before the bus and engine go away.
      for (const abort of this.aborts) {
        this.stoppedJobs.add(abort);
        abort.abort();
      }
      await settlesWithin(drained, ABORTED_JOBS_SETTLE_MS);
    }
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.options.bus.publish(WORKER_LEAVE_SUBJECT, encodeJson({ type: LEAVE_TYPE, id: this.id }));
    await this.options.engine.stop();
    this.options.logger.info({ worker_id: this.id, timed_out: timedOut }, 'worker left');
  }

  private announce(): void {
    const heartbeat: WorkerHeartbeat = {
      type: HEARTBEAT_TYPE,
      id: this.id,
      engine: this.options.engine.name,
      pool: this.options.pool,
      host: hostname(),
      version: this.options.version,
      capacity: this.options.engine.capacity,
      in_flight: this.inFlight,
      started_at: this.startedAt,
      sent_at: new Date().toISOString(),
      heartbeat_interval_ms: this.options.heartbeatIntervalMs,
      draining: this.draining,
      ...browserSessionsOf(this.options.browserSessions?.() ?? null),
    };
    this.options.bus.publish(WORKER_HEARTBEAT_SUBJECT, encodeJson(heartbeat));
  }

  private async handle(message: Decoded<ScrapeJob>): Promise<ScrapeResult> {
    if (!message.ok) {
      // A gateway and a worker of different versions disagreeing on the job: say where.
      this.options.logger.error({ worker_id: this.id, issues: message.issues.slice(0, 5) }, 'malformed job on the bus');
      return this.refusal(new ServiceError('ERR::INTERNAL::ERROR', 'Malformed job on the bus'));
    }
    const job = message.value;
    this.inFlight += 1;
    this.metrics.inFlight.set({ engine: job.engine }, this.inFlight);
    const abort = new Cancellation();
    this.aborts.add(abort);
    const timer = setTimeout(() => abort.abort(), Math.max(0, job.deadline_at - Date.now()));
    const release = await this.slots.acquire();
    const started = Date.now();
    try {
      const ran = await runJob(this.options.engine, this.options.content, job, { workerId: this.id, signal: abort, logger: this.options.logger });
      const result = this.stoppedJobs.has(abort) && !ran.ok ? stoppedBeforeFinishing(ran) : ran;
      const outcome = result.ok ? 'success' : result.error.code;
      this.metrics.jobs.inc({ engine: job.engine, outcome });
      this.metrics.duration.observe({ engine: job.engine }, (Date.now() - started) / 1000);
      this.options.logger.info({ request_id: job.request_id, worker_id: this.id, outcome, ms: Date.now() - started }, 'job finished');
      return result;
    } finally {
      release();
      clearTimeout(timer);
      this.aborts.delete(abort);
      this.inFlight -= 1;
      this.metrics.inFlight.set({ engine: job.engine }, this.inFlight);
    }
  }

  private refusal(error: ServiceError): ScrapeResult {
    return {
      type: SCRAPE_RESULT_TYPE,
      ok: false,
      engine: this.options.engine.name,
      worker_id: this.id,
      attempts: [],
      timeline: [],
      spans: { queue_ms: 0, engine_ms: 0, upstream_ms: null, extract_ms: null },
      bytes_in: 0,
      proxy_bytes: 0,
      proxy: { source: 'direct', endpoint: null, country: null },
      blocked: null,
      warnings: [],
      error: error.toWire(),
    };
  }
}

/**
 * A job cut off by the worker's shutdown failed on the engine's side, not the target's: whatever the
 * engine made of its abort (a timeout, usually), the answer is the retryable 503 of an engine gone.
 */
function stoppedBeforeFinishing(result: ScrapeResult & { ok: false }): ScrapeResult {
  const error = new ServiceError('ERR::ENGINE::UNAVAILABLE', 'The worker running this request stopped (its shutdown grace period ran out) before the page was done; retry', {
    diagnostics: { hint: 'Another worker of the pool takes the retry.' },
  });
  return { ...result, error: error.toWire() };
}

function browserSessionsOf(sessions: { capacity: number; in_use: number } | null) {
  return sessions ? { browser_sessions: sessions } : {};
}

/** How long jobs aborted at the end of the grace period get to send their answer. */
const ABORTED_JOBS_SETTLE_MS = 5000;

/** Several engines in one process (`trawler all`) share one registry, so the metrics are made once. */
function workerMetrics(registry: Registry) {
  const existing = registry.getSingleMetric(`${METRIC_PREFIX}worker_jobs_total`);
  if (existing) {
    return {
      jobs: existing as Counter<'engine' | 'outcome'>,
      duration: registry.getSingleMetric(`${METRIC_PREFIX}worker_job_duration_seconds`) as Histogram<'engine'>,
      inFlight: registry.getSingleMetric(`${METRIC_PREFIX}worker_jobs_in_flight`) as Gauge<'engine'>,
      capacity: registry.getSingleMetric(`${METRIC_PREFIX}worker_capacity`) as Gauge<'engine'>,
    };
  }
  const registers = [registry];
  return {
    jobs: new Counter({ name: `${METRIC_PREFIX}worker_jobs_total`, help: 'Jobs finished by engine and outcome (success or the error code).', labelNames: ['engine', 'outcome'], registers }),
    duration: new Histogram({ name: `${METRIC_PREFIX}worker_job_duration_seconds`, help: 'Job wall time on the worker, waiting for a slot excluded.', labelNames: ['engine'], buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60], registers }),
    inFlight: new Gauge({ name: `${METRIC_PREFIX}worker_jobs_in_flight`, help: 'Jobs held by this worker, by engine.', labelNames: ['engine'], registers }),
    capacity: new Gauge({ name: `${METRIC_PREFIX}worker_capacity`, help: 'Concurrent job slots of this worker, by engine.', labelNames: ['engine'], registers }),
  };
}
