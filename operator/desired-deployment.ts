import { createHash } from 'node:crypto';
import type { V1Container, V1ContainerPort, V1Deployment, V1PodSpec, V1ResourceRequirements, V1Volume, V1VolumeMount } from '@kubernetes/client-node';
import { RENDER_ENGINES } from '../lib/protocol/index.js';
import { GROUP_VERSION, WORKER_POOL_KIND } from './api-names.js';
import { LABEL, MANAGED_BY, TEMPLATE_HASH_ANNOTATION } from './labels.js';
import type { ScrapeEngineResource, WorkerPoolResource } from './spec-schemas.js';
import { stableStringify } from './conditions.js';
import { relayOf, workerEnv, type WorkerEnvDefaults } from './worker-env.js';

export interface DeploymentDefaults extends WorkerEnvDefaults {
  /** Image for engines that do not name one. */
  image: string;
}

/** Working directory of the image (charts/Dockerfile); the command below is relative to it. */
export const IMAGE_WORKDIR = '/app';
/** Seconds the kubelet waits beyond SHUTDOWN_GRACE_MS before SIGKILL, for the process to leave membership and exit. */
export const TERMINATION_MARGIN_SECONDS = 15;

const DEFAULT_RESOURCES: Record<'fetch' | 'browser', V1ResourceRequirements> = {
  fetch: { requests: { cpu: '250m', memory: '256Mi' }, limits: { memory: '512Mi' } },
  browser: { requests: { cpu: '500m', memory: '1Gi' }, limits: { memory: '2Gi' } },
};

export function deploymentName(pool: WorkerPoolResource, engine: ScrapeEngineResource): string {
  return `trawler-${pool.metadata.name}-${engine.spec.engine}`;
}

/** Labels of the Deployment and its pods. The selector uses the two `trawler.dev/` ones, which never change for a name. */
export function workerLabels(pool: WorkerPoolResource, engine: ScrapeEngineResource): Record<string, string> {
  return {
    [LABEL.name]: 'trawler-worker',
    [LABEL.instance]: pool.metadata.name,
    [LABEL.component]: 'worker',
    [LABEL.partOf]: 'trawler',
    [LABEL.managedBy]: MANAGED_BY,
    [LABEL.engine]: engine.spec.engine,
    [LABEL.pool]: pool.metadata.name,
    [LABEL.scrapeEngine]: engine.metadata.name,
  };
}

export function selectorLabels(pool: WorkerPoolResource, engine: ScrapeEngineResource): Record<string, string> {
  return { [LABEL.pool]: pool.metadata.name, [LABEL.engine]: engine.spec.engine };
}

/**
 * The Deployment a WorkerPool of a ScrapeEngine should have. Pure: equal inputs give an equal
 * manifest, and its `trawler.dev/template-hash` annotation is the hash of everything else in it.
 */
export function desiredDeployment(pool: WorkerPoolResource, engine: ScrapeEngineResource, defaults: DeploymentDefaults): V1Deployment {
  const labels = workerLabels(pool, engine);
  const annotations: Record<string, string> = {};
  const spec = engine.spec;
  const deployment: V1Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: deploymentName(pool, engine),
      namespace: pool.metadata.namespace,
      labels,
      annotations,
      ownerReferences: [
        {
          apiVersion: GROUP_VERSION,
          kind: WORKER_POOL_KIND,
          name: pool.metadata.name,
          uid: pool.metadata.uid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      replicas: pool.spec.replicas,
      revisionHistoryLimit: 3,
      selector: { matchLabels: selectorLabels(pool, engine) },
      // Never below the declared capacity during a rollout: surge one, take none away first.
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: {
          labels,
          annotations: {
            'prometheus.io/scrape': 'true',
            'prometheus.io/port': String(spec.metricsPort),
            'prometheus.io/path': '/metrics',
          },
        },
        spec: podSpec(pool, engine, defaults),
      },
    },
  };
  annotations[TEMPLATE_HASH_ANNOTATION] = templateHash(deployment);
  return deployment;
}

/** The hash of a desired Deployment without its own hash annotation. */
export function templateHash(deployment: V1Deployment): string {
  const annotations = { ...deployment.metadata?.annotations };
  delete annotations[TEMPLATE_HASH_ANNOTATION];
  const subject = { ...deployment, metadata: { ...deployment.metadata, annotations } };
  return createHash('sha256').update(stableStringify(subject)).digest('hex').slice(0, 16);
}

function isBrowser(engine: ScrapeEngineResource): boolean {
  return RENDER_ENGINES.includes(engine.spec.engine);
}

function podSpec(pool: WorkerPoolResource, engine: ScrapeEngineResource, defaults: DeploymentDefaults): V1PodSpec {
  const spec = engine.spec;
  const browser = isBrowser(engine);
  const pod: V1PodSpec = {
    // Chromium forks helpers; with a shared process namespace the pause container is PID 1 and reaps them.
    shareProcessNamespace: browser ? true : undefined,
    terminationGracePeriodSeconds: Math.ceil(spec.shutdownGraceMs / 1000) + TERMINATION_MARGIN_SECONDS,
    automountServiceAccountToken: false,
    serviceAccountName: spec.serviceAccountName,
    imagePullSecrets: spec.imagePullSecrets,
    securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
    nodeSelector: pool.spec.nodeSelector,
    tolerations: pool.spec.tolerations,
    priorityClassName: pool.spec.priorityClassName,
    containers: [workerContainer(pool, engine, defaults, browser)],
    volumes: volumes(engine, browser),
  };
  return withoutUndefined(pod);
}

function workerContainer(pool: WorkerPoolResource, engine: ScrapeEngineResource, defaults: DeploymentDefaults, browser: boolean): V1Container {
  const spec = engine.spec;
  const probe = { httpGet: { path: '/healthz', port: 'metrics' }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 };
  const container: V1Container = {
    name: 'worker',
    image: spec.image ?? defaults.image,
    imagePullPolicy: spec.imagePullPolicy,
    workingDir: IMAGE_WORKDIR,
    command: ['node', 'dist/bin/trawler.js', 'worker', '--engine', spec.engine],
    env: workerEnv(engine, pool, defaults),
    envFrom: spec.envFrom,
    ports: containerPorts(spec),
    livenessProbe: { ...probe, initialDelaySeconds: 10 },
    readinessProbe: { ...probe, initialDelaySeconds: 2 },
    resources: spec.resources ?? DEFAULT_RESOURCES[browser ? 'browser' : 'fetch'],
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    volumeMounts: volumeMounts(browser),
  };
  return withoutUndefined(container);
}

function containerPorts(spec: ScrapeEngineResource['spec']): V1ContainerPort[] {
  const ports: V1ContainerPort[] = [{ name: 'metrics', containerPort: spec.metricsPort, protocol: 'TCP' }];
  const relay = relayOf(spec);
  if (relay) ports.push({ name: 'browser-relay', containerPort: relay.containerPort, protocol: 'TCP' });
  return ports;
}

function volumes(engine: ScrapeEngineResource, browser: boolean): V1Volume[] {
  const list: V1Volume[] = [{ name: 'tmp', emptyDir: {} }];
  if (browser) list.push({ name: 'dshm', emptyDir: { medium: 'Memory', sizeLimit: shmSize(engine) } });
  return list;
}

function volumeMounts(browser: boolean): V1VolumeMount[] {
  const list: V1VolumeMount[] = [{ name: 'tmp', mountPath: '/tmp' }];
  if (browser) list.push({ name: 'dshm', mountPath: '/dev/shm' });
  return list;
}

/** Headful Chromium (under the Xvfb the worker starts on demand, whose socket goes to /tmp) draws more into shared memory. */
function shmSize(engine: ScrapeEngineResource): string {
  return engine.spec.browser?.shmSize ?? (engine.spec.browser?.headful ? '2Gi' : '1Gi');
}

function withoutUndefined<T extends object>(value: T): T {
  for (const key of Object.keys(value) as (keyof T)[]) {
    if (value[key] === undefined) delete value[key];
  }
  return value;
}
