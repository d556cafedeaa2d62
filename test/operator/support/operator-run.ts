import { Registry } from 'prom-client';
import { createLogger } from '../../../lib/log.js';
import { createOperator, type Operator, type OperatorOptions } from '../../../operator/operator.js';
import { FakeApiServer } from './fake-api-server.js';
import type { KObject } from './object-store.js';

export const NAMESPACE = 'scraping';
export const WORKER_IMAGE = 'registry.test/trawler:1.2.3';
export const NATS_URL = 'nats://nats.messaging.svc:4222';
export const FIXED_NOW = new Date('2030-01-02T03:04:05.000Z');

export interface Harness {
  api: FakeApiServer;
  operator: Operator;
  registry: Registry;
  /** Resolves when every watch has seen the double's latest event of its resource and the queue is idle. */
  settle(): Promise<void>;
  close(): Promise<void>;
}

export async function startHarness(overrides: Partial<OperatorOptions> = {}): Promise<Harness> {
  const api = new FakeApiServer();
  await api.start();
  const registry = new Registry();
  const operator = createOperator({
    kubeConfig: api.kubeConfig(NAMESPACE),
    namespace: NAMESPACE,
    defaults: { image: WORKER_IMAGE, natsUrl: NATS_URL, natsNamespace: '' },
    logger: createLogger('trawler-operator-test', 'silent'),
    registry,
    concurrency: 4,
    backoff: { baseMs: 5, maxMs: 40 },
    watchRestartDelayMs: 10,
    resyncSeconds: 0,
    now: () => FIXED_NOW,
    ...overrides,
  });
  await operator.start();
  const settle = () =>
    until(() => {
      const seen = operator.watches.resourceVersions();
      const caughtUp = (['scrapeengines', 'workerpools', 'proxypools', 'secrets', 'deployments'] as const).every(
        (plural) => Number(seen[plural] || 0) >= api.store.lastEventRv(plural),
      );
      return caughtUp && operator.queue.isIdle();
    }, 'the operator to settle');
  return {
    api,
    operator,
    registry,
    settle,
    async close() {
      await operator.stop();
      await api.close();
    },
  };
}

/** Re-checks a condition on every turn of the event loop until it holds; fails after a bound. */
export async function until(condition: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export function scrapeEngine(name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'trawler.dev/v1alpha1', kind: 'ScrapeEngine', metadata: { name }, spec };
}

export function workerPool(name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'trawler.dev/v1alpha1', kind: 'WorkerPool', metadata: { name }, spec };
}

export function proxyPool(name: string, spec: Record<string, unknown>): KObject {
  return { apiVersion: 'trawler.dev/v1alpha1', kind: 'ProxyPool', metadata: { name }, spec };
}

export function condition(object: KObject | undefined, type: string): { status: string; reason: string; message: string } | undefined {
  const conditions = (object?.status as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } | undefined)?.conditions;
  return conditions?.find((c) => c.type === type);
}
