import { z } from 'zod';
import { LogLevelSchema, optionalText, parseEnvironment } from '../lib/config.js';

/**
 * The operator's settings, read once from the environment at start (docs/operator.md lists them).
 * The Kubernetes connection itself comes from KUBECONFIG or the in-cluster service account.
 */
export const OperatorConfigSchema = z.object({
  LOG_LEVEL: LogLevelSchema,
  /** Namespace to watch; empty: every namespace. */
  WATCH_NAMESPACE: z.string().default(''),
  /** Address and port of the operator's /metrics, /healthz and /readyz. */
  METRICS_HOST: z.string().default('0.0.0.0'),
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** Worker image for ScrapeEngines that name none; unset: trawler:<package version>. */
  WORKER_IMAGE: optionalText,
  /** NATS_URL of workers whose ScrapeEngine names no NATS server. */
  DEFAULT_NATS_URL: optionalText,
  DEFAULT_NATS_NAMESPACE: z.string().regex(/^[A-Za-z0-9_-]*$/).default(''),
  RECONCILE_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  RECONCILE_BACKOFF_BASE_MS: z.coerce.number().int().min(1).max(60_000).default(500),
  RECONCILE_BACKOFF_MAX_MS: z.coerce.number().int().min(1).max(3_600_000).default(300_000),
  /** Delay before a failed watch is started again. */
  WATCH_RESTART_DELAY_MS: z.coerce.number().int().min(1).max(300_000).default(2000),
  /** The gateways' PostgreSQL, read only for ProxyPool status health; unset: status carries no health. */
  DATABASE_URL: optionalText,
  /** Every object is reconciled again this often, to correct drift; 0: never. */
  RESYNC_SECONDS: z.coerce.number().int().min(0).max(86_400).default(600),
});

export type OperatorConfig = z.infer<typeof OperatorConfigSchema>;

export function loadOperatorConfig(env: NodeJS.ProcessEnv): OperatorConfig {
  return parseEnvironment(OperatorConfigSchema, env, 'operator configuration');
}
