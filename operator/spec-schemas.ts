import { z } from 'zod';
import type { V1EnvFromSource, V1EnvVarSource } from '@kubernetes/client-node';
import { ENGINE_NAMES } from '../lib/protocol/index.js';
import { DEFAULT_RELAY_PORT } from '../lib/protocol/browser.js';
import type { ObjectMeta } from './stored-object.js';

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
  /** The remote-browser relay (`GET /v1/browser`, docs/remote-browser.md) of chromium and obscura workers. */
  remoteBrowser: z
    .object({
      enabled: z.boolean().default(true),
      port: z.number().int().min(1).max(65534).default(DEFAULT_RELAY_PORT),
      sessions: z.number().int().min(1).max(1000).optional(),
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
