import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { distributedServicesAvailable } from '../support/services.js';
import { collectExpositions, declaredFamilies, type Expositions, type ProcessKind } from './expositions.js';
import { promtool } from './promtool.js';
import { kitMetricReferences } from './render-chart.js';

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
    const result = await promtool(['check', 'metrics'], text);
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

  it('the dashboard and the alert rules use only metrics some process declares (histograms by _bucket, _sum, _count)', () => {
    const declared = new Map<string, string>();
    for (const kind of KINDS) for (const [name, type] of declaredFamilies(expositions.texts[kind])) declared.set(name, type);
    const exists = (name: string) => {
      if (declared.has(name)) return declared.get(name) !== 'histogram';
      const family = name.replace(/_(bucket|sum|count)$/, '');
      return family !== name && declared.get(family) === 'histogram';
    };
    const references = kitMetricReferences();
    expect(references.size).toBeGreaterThanOrEqual(12);
    const missing = [...references].filter(([name]) => !exists(name)).map(([name, source]) => `${name} (${source})`);
    expect(missing).toEqual([]);
  });
});
