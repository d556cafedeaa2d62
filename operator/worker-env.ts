import type { V1EnvVar } from '@kubernetes/client-node';
import { DEFAULT_RELAY_PORT, relayPortOf } from '../lib/protocol/browser.js';
import type { ScrapeEngineResource, ScrapeEngineSpec, WorkerPoolResource } from './spec-schemas.js';

export interface WorkerEnvDefaults {
  /** NATS_URL for engines that do not name one. */
  natsUrl: string | undefined;
  /** NATS_NAMESPACE for engines that do not name one. */
  natsNamespace: string;
}

export interface RelaySettings {
  /** BROWSER_RELAY_PORT. */
  port: number;
  /** Where the engine's relay listens for that setting (obscura's takes the next port). */
  containerPort: number;
  sessions: number | undefined;
}

/** The relay a ScrapeEngine's workers open for `GET /v1/browser`, or null: not chromium/obscura, or turned off. */
export function relayOf(spec: ScrapeEngineSpec): RelaySettings | null {
  if (spec.engine !== 'chromium' && spec.engine !== 'obscura') return null;
  if (spec.remoteBrowser?.enabled === false) return null;
  const port = spec.remoteBrowser?.port ?? DEFAULT_RELAY_PORT;
  return { port, containerPort: relayPortOf(spec.engine, port), sessions: spec.remoteBrowser?.sessions };
}

const DEFAULT_BROWSER_PATH = { chromium: '/usr/bin/chromium', obscura: '/usr/bin/chromium-headless-shell' } as const;

/**
 * The environment of a worker container, in a fixed order: what the operator derives from the
 * engine and the pool, then the engine's own `env`, whose entries replace derived ones of the same name.
 */
export function workerEnv(engine: ScrapeEngineResource, pool: WorkerPoolResource, defaults: WorkerEnvDefaults): V1EnvVar[] {
  const spec = engine.spec;
  const derived: V1EnvVar[] = [];
  if (spec.nats?.urlSecretRef) {
    derived.push({ name: 'NATS_URL', valueFrom: { secretKeyRef: { name: spec.nats.urlSecretRef.name, key: spec.nats.urlSecretRef.key } } });
  } else {
    const url = spec.nats?.url ?? defaults.natsUrl;
    if (url) derived.push({ name: 'NATS_URL', value: url });
  }
  derived.push({ name: 'NATS_NAMESPACE', value: spec.nats?.namespace ?? defaults.natsNamespace });
  derived.push({ name: 'WORKER_POOL', value: pool.spec.poolName ?? pool.metadata.name });
  const capacity = pool.spec.capacity ?? spec.capacity;
  if (capacity !== undefined) derived.push({ name: 'WORKER_CAPACITY', value: String(capacity) });
  // The worker's /metrics and /healthz listen on HOST; the kubelet and Prometheus come from outside the pod.
  derived.push({ name: 'HOST', value: '0.0.0.0' });
  derived.push({ name: 'METRICS_PORT', value: String(spec.metricsPort) });
  derived.push({ name: 'HEARTBEAT_INTERVAL_MS', value: String(spec.heartbeatIntervalMs) });
  derived.push({ name: 'SHUTDOWN_GRACE_MS', value: String(spec.shutdownGraceMs) });
  derived.push({ name: 'LOG_LEVEL', value: spec.logLevel });
  if (spec.engine === 'chromium') {
    derived.push({ name: 'CHROMIUM_PATH', value: spec.browser?.executablePath ?? DEFAULT_BROWSER_PATH.chromium });
  }
  if (spec.engine === 'obscura') {
    derived.push({ name: 'OBSCURA_PATH', value: spec.browser?.executablePath ?? DEFAULT_BROWSER_PATH.obscura });
    if (spec.browser?.cdpUrl) derived.push({ name: 'OBSCURA_CDP_URL', value: spec.browser.cdpUrl });
  }
  derived.push(...relayEnv(spec));
  const own = (spec.env ?? []).map((e): V1EnvVar => ({ name: e.name, value: e.value, valueFrom: e.valueFrom }));
  const ownNames = new Set(own.map((e) => e.name));
  return [...derived.filter((e) => !ownNames.has(e.name)), ...own].map(dropUndefined);
}

/**
 * A lease names the relay by the pod's own IP: the ticket lives in one pod, so a Service (which picks any
 * pod) cannot carry it, and a Deployment's pods have no DNS names of their own.
 */
function relayEnv(spec: ScrapeEngineSpec): V1EnvVar[] {
  if (spec.engine !== 'chromium' && spec.engine !== 'obscura') return [];
  const relay = relayOf(spec);
  if (!relay) return [{ name: 'BROWSER_ROUTE_ENABLED', value: 'false' }];
  const env: V1EnvVar[] = [
    { name: 'BROWSER_ROUTE_ENABLED', value: 'true' },
    { name: 'BROWSER_RELAY_HOST', value: '0.0.0.0' },
    { name: 'BROWSER_RELAY_PORT', value: String(relay.port) },
    { name: 'BROWSER_RELAY_ADVERTISE_HOST', valueFrom: { fieldRef: { fieldPath: 'status.podIP' } } },
  ];
  if (relay.sessions !== undefined) env.push({ name: 'BROWSER_SESSIONS', value: String(relay.sessions) });
  return env;
}

function dropUndefined(env: V1EnvVar): V1EnvVar {
  const out: V1EnvVar = { name: env.name };
  if (env.value !== undefined) out.value = env.value;
  if (env.valueFrom !== undefined) out.valueFrom = env.valueFrom;
  return out;
}
