import { z } from 'zod';
import type { V1EnvFromSource, V1EnvVarSource } from '@kubernetes/client-node';
import { ENGINE_NAMES } from '../lib/protocol/index.js';


/** The custom resources' API group and the names the operator and the CRDs share. */
export const API_GROUP = 'trawler.dev';
export const API_VERSION = 'v1alpha1';
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

export const SCRAPE_ENGINE_KIND = 'ScrapeEngine';
export const SCRAPE_ENGINE_PLURAL = 'scrapeengines';
export const WORKER_POOL_KIND = 'WorkerPool';
export const WORKER_POOL_PLURAL = 'workerpools';
export const PROXY_POOL_KIND = 'ProxyPool';
export const PROXY_POOL_PLURAL = 'proxypools';

export const MANAGED_BY = 'trawler-operator';

/** Labels on every Deployment (and its pods) the operator manages. */
export const LABEL = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  partOf: 'app.kubernetes.io/part-of',
  managedBy: 'app.kubernetes.io/managed-by',
  engine: 'trawler.dev/engine',
  pool: 'trawler.dev/pool',
  scrapeEngine: 'trawler.dev/scrape-engine',
} as const;

/** Label selector of every Deployment the operator watches. */
export const MANAGED_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;

/** Hash of the desired Deployment; a Deployment whose annotation matches needs no update. */
export const TEMPLATE_HASH_ANNOTATION = 'trawler.dev/template-hash';

export const CONDITION = {
  available: 'Available',
  progressing: 'Progressing',
  degraded: 'Degraded',
} as const;
export type ConditionType = (typeof CONDITION)[keyof typeof CONDITION];

/** Reasons of the conditions, CamelCase as Kubernetes expects. */
export const REASON = {
  // healthy states
  asExpected: 'AsExpected',
  engineDeployable: 'EngineDeployable',
  minimumReplicasReady: 'MinimumReplicasReady',
  scaledToZero: 'ScaledToZero',
  rolloutComplete: 'RolloutComplete',
  // transitional states
  replicasNotReady: 'ReplicasNotReady',
  rollingOut: 'RollingOut',
  notDeployed: 'NotDeployed',
  // problems
  invalidSpec: 'InvalidSpec',
  engineNotDeployable: 'EngineNotDeployable',
  missingNatsUrl: 'MissingNatsUrl',
  engineNotFound: 'EngineNotFound',
  engineInvalid: 'EngineInvalid',
  deploymentNotOwned: 'DeploymentNotOwned',
  replicaFailure: 'ReplicaFailure',
  poolFileWritten: 'PoolFileWritten',
  secretMissing: 'SecretMissing',
  noHealthyExit: 'NoHealthyExit',
} as const;
export type Reason = (typeof REASON)[keyof typeof REASON];

/** A queue key: `<Kind>/<namespace>/<name>`. */
export type ObjectKind = typeof SCRAPE_ENGINE_KIND | typeof WORKER_POOL_KIND | typeof PROXY_POOL_KIND;

export function objectKey(kind: ObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export function parseObjectKey(key: string): { kind: ObjectKind; namespace: string; name: string } {
  const [kind, namespace, name] = key.split('/');
  if ((kind !== SCRAPE_ENGINE_KIND && kind !== WORKER_POOL_KIND && kind !== PROXY_POOL_KIND) || !namespace || !name) {
    throw new Error(`malformed object key "${key}"`);
  }
  return { kind, namespace, name };
}

/** metav1.Condition, as in kubebuilder's scaffold. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

const objectLike = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value);

const quantity = z.union([z.string().min(1), z.number()]).transform(String);
const quantityMap = z.record(z.string(), quantity);

const ResourcesSchema = z.object({
  requests: quantityMap.optional(),
  limits: quantityMap.optional(),
});

const EnvVarSchema = z.object({
  name: z.string().min(1),
  value: z.string().optional(),
  valueFrom: z.custom<V1EnvVarSource>(objectLike).optional(),
});
export type EngineEnvVar = z.infer<typeof EnvVarSchema>;

const SecretKeyRefSchema = z.object({ name: z.string().min(1), key: z.string().min(1) });

/** Spec of a ScrapeEngine: what one engine's workers run and how. The CRD's openAPIV3Schema mirrors it. */
export const ScrapeEngineSpecSchema = z.object({
  engine: z.enum(ENGINE_NAMES),
  image: z.string().min(1).optional(),
  imagePullPolicy: z.enum(['Always', 'IfNotPresent', 'Never']).optional(),
  imagePullSecrets: z.array(z.object({ name: z.string().min(1) })).optional(),
  capacity: z.number().int().min(1).max(1000).optional(),
  resources: ResourcesSchema.optional(),
  nats: z
    .object({
      url: z.string().min(1).optional(),
      urlSecretRef: SecretKeyRefSchema.optional(),
      namespace: z.string().regex(/^[A-Za-z0-9_-]*$/).optional(),
    })
    .optional(),
  env: z.array(EnvVarSchema).optional(),
  envFrom: z.array(z.custom<V1EnvFromSource>(objectLike)).optional(),
  browser: z
    .object({
      headful: z.boolean().default(false),
      shmSize: z.string().min(1).optional(),
      executablePath: z.string().min(1).optional(),
      cdpUrl: z.string().min(1).optional(),
    })
    .optional(),
  metricsPort: z.number().int().min(1).max(65535).default(9464),
  heartbeatIntervalMs: z.number().int().min(100).max(60_000).default(2000),
  shutdownGraceMs: z.number().int().min(0).max(600_000).default(30_000),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  serviceAccountName: z.string().min(1).optional(),
});
export type ScrapeEngineSpec = z.infer<typeof ScrapeEngineSpecSchema>;

const TolerationSchema = z.object({
  key: z.string().optional(),
  operator: z.enum(['Exists', 'Equal']).optional(),
  value: z.string().optional(),
  effect: z.enum(['NoSchedule', 'PreferNoSchedule', 'NoExecute']).optional(),
  tolerationSeconds: z.number().int().optional(),
});

/** Spec of a WorkerPool: a number of workers of one ScrapeEngine, announced under one pool name. */
export const WorkerPoolSpecSchema = z.object({
  engineRef: z.object({ name: z.string().min(1) }),
  replicas: z.number().int().min(0).default(1),
  poolName: z.string().regex(/^[A-Za-z0-9_.-]{1,63}$/).optional(),
  capacity: z.number().int().min(1).max(1000).optional(),
  autoscaling: z
    .object({
      minReplicas: z.number().int().min(0).optional(),
      maxReplicas: z.number().int().min(1).optional(),
      targetUtilizationPercent: z.number().int().min(1).max(100).optional(),
    })
    .optional(),
  nodeSelector: z.record(z.string(), z.string()).optional(),
  tolerations: z.array(TolerationSchema).optional(),
  priorityClassName: z.string().min(1).optional(),
});
export type WorkerPoolSpec = z.infer<typeof WorkerPoolSpecSchema>;

/** The metadata fields the operator reads; the API server always fills them for stored objects. */
const MetadataSchema = z.object({
  name: z.string(),
  namespace: z.string(),
  uid: z.string().default(''),
  generation: z.number().int().default(0),
  resourceVersion: z.string().optional(),
  /** Set once a delete waits on finalizers (someone else's: the operator adds none); then the object is left alone. */
  deletionTimestamp: z.string().optional(),
});
export type ObjectMeta = z.infer<typeof MetadataSchema>;

const ConditionSchema = z.object({
  type: z.string(),
  status: z.enum(['True', 'False', 'Unknown']),
  reason: z.string(),
  message: z.string().default(''),
  lastTransitionTime: z.string(),
  observedGeneration: z.number().int().optional(),
});
const conditionsOf = (status: unknown): Condition[] => {
  const parsed = z.object({ conditions: z.array(ConditionSchema).default([]) }).safeParse(status ?? {});
  return parsed.success ? parsed.data.conditions : [];
};

/** A stored custom object as read: metadata checked, spec still raw (validated in the reconcile). */
export interface StoredObject {
  metadata: ObjectMeta;
  spec: unknown;
  status: unknown;
  conditions: Condition[];
}

export function readStoredObject(raw: unknown): StoredObject {
  const parsed = z
    .object({ metadata: MetadataSchema, spec: z.unknown().optional(), status: z.unknown().optional() })
    .parse(raw);
  return { metadata: parsed.metadata, spec: parsed.spec, status: parsed.status, conditions: conditionsOf(parsed.status) };
}

export type SpecResult<T> = { ok: true; spec: T } | { ok: false; message: string };

export function parseSpec<T>(schema: z.ZodType<T>, spec: unknown): SpecResult<T> {
  const parsed = schema.safeParse(spec ?? {});
  if (parsed.success) return { ok: true, spec: parsed.data };
  const message = parsed.error.issues.map((i) => `spec.${i.path.join('.')}: ${i.message}`).join('; ');
  return { ok: false, message };
}

export interface ScrapeEngineResource {
  metadata: ObjectMeta;
  spec: ScrapeEngineSpec;
}

export interface WorkerPoolResource {
  metadata: ObjectMeta;
  spec: WorkerPoolSpec;
}

export interface WorkerPoolStatus {
  observedGeneration: number;
  engine: string;
  deploymentName: string;
  replicas: number;
  readyReplicas: number;
  updatedReplicas: number;
  availableReplicas: number;
  selector: string;
  conditions: Condition[];
}

export interface ScrapeEngineStatus {
  observedGeneration: number;
  engine: string;
  pools: string[];
  conditions: Condition[];
}
