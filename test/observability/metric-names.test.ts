import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedServicesAvailable } from '../support/services.js';
import { collectExpositions, declaredFamilies, promtoolCheckMetrics, type Expositions, type ProcessKind } from './expositions.js';

const available = await distributedServicesAvailable();
const KINDS: ProcessKind[] = ['gateway', 'fetch worker', 'chromium worker', 'operator'];

describe.skipIf(!available)('every process serves metrics that follow Prometheus naming conventions', () => {
  let expositions: Expositions;
  beforeAll(async () => {
    expositions = await collectExpositions();
  }, 300_000);
  afterAll(async () => expositions?.close());

  it.each(KINDS)('%s: promtool check metrics finds nothing', async (kind) => {
    const text = expositions.texts[kind];
    expect(declaredFamilies(text).size).toBeGreaterThan(10);
    const result = await promtoolCheckMetrics(text);
    expect(result.output).toBe('');
    expect(result.code).toBe(0);
  });

  it('each process kind declares its own families', () => {
    const families = (kind: ProcessKind) => [...declaredFamilies(expositions.texts[kind]).keys()];
    expect(families('gateway')).toEqual(expect.arrayContaining(['trawler_scrapes_total', 'trawler_credits_charged_total', 'trawler_pool_workers', 'trawler_batch_items']));
    expect(families('fetch worker')).toEqual(expect.arrayContaining(['trawler_worker_jobs_total', 'trawler_worker_capacity', 'trawler_worker_job_duration_seconds']));
    expect(families('chromium worker')).toContain('trawler_worker_jobs_in_flight');
    expect(families('operator')).toEqual(expect.arrayContaining(['trawler_operator_reconcile_total', 'trawler_operator_pool_desired_replicas']));
    expect(expositions.texts['fetch worker']).toMatch(/^trawler_worker_capacity\{engine="fetch",program="trawler-worker"\} \d+$/m);
    expect(expositions.texts.gateway).toMatch(/^trawler_batch_items\{status="queued",program="trawler-gateway"\} 0$/m);
  });
});
