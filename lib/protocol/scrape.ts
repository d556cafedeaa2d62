import { z } from 'zod';
import { AttemptSchema, TimelineStepSchema, WireErrorSchema } from '../errors/index.js';
import { EngineNameSchema } from './engines.js';

/**
 * Gateway -> worker: one unit of scrape work on one engine. `params` are the scrape parameters
 * already validated and normalised by the gateway (see lib/scrape/params.ts); workers trust them.
 */
export const SCRAPE_JOB_TYPE = 'trawler.scrape.job.v1';
export const SCRAPE_RESULT_TYPE = 'trawler.scrape.result.v1';

/** A cookie as it crosses the bus: Playwright's shape (camelCase; a leading `.` marks a domain cookie). */
export const WireCookieSchema = z.object({
  name: z.string().min(1),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string().default('/'),
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.string().default('Lax'),
});
export type WireCookie = z.infer<typeof WireCookieSchema>;

export const SessionStateSchema = z.object({
  session_id: z.string(),
  cookies: z.array(z.record(z.string(), z.unknown())),
  local_storage: z.record(z.string(), z.record(z.string(), z.string())),
  session_storage: z.record(z.string(), z.record(z.string(), z.string())),
});
export type SessionState = z.infer<typeof SessionStateSchema>;

export const ScrapeJobSchema = z.object({
  type: z.literal(SCRAPE_JOB_TYPE),
  request_id: z.string(),
  project_id: z.string(),
  engine: EngineNameSchema,
  params: z.record(z.string(), z.unknown()),
  /** Epoch milliseconds after which the gateway no longer waits for this job. */
  deadline_at: z.number(),
  budget_ms: z.number().int(),
  dispatched_at: z.number(),
  session: SessionStateSchema.nullable().default(null),
});
export type ScrapeJob = z.infer<typeof ScrapeJobSchema>;

export const BlockedSchema = z.object({
  vendor: z.string(),
  signal: z.string(),
  rule: z.string(),
});
export type Blocked = z.infer<typeof BlockedSchema>;

export const ProxyUseSchema = z.object({
  source: z.enum(['pool', 'custom', 'direct']),
  /** Redacted identifier of the endpoint, never credentials: `scheme://host:port`. */
  endpoint: z.string().nullable(),
  country: z.string().nullable(),
});
export type ProxyUse = z.infer<typeof ProxyUseSchema>;

export const WorkerSpansSchema = z.object({
  queue_ms: z.number(),
  engine_ms: z.number(),
  upstream_ms: z.number().nullable(),
  extract_ms: z.number().nullable(),
});
export type WorkerSpans = z.infer<typeof WorkerSpansSchema>;

const ResultCommon = {
  type: z.literal(SCRAPE_RESULT_TYPE),
  engine: EngineNameSchema,
  worker_id: z.string(),
  attempts: z.array(AttemptSchema),
  timeline: z.array(TimelineStepSchema),
  spans: WorkerSpansSchema,
  bytes_in: z.number().int(),
  proxy_bytes: z.number().int(),
  proxy: ProxyUseSchema,
  blocked: BlockedSchema.nullable(),
  warnings: z.array(z.string()),
};

export const ScrapeSuccessSchema = z.object({
  ...ResultCommon,
  ok: z.literal(true),
  target_status: z.number().int(),
  final_url: z.string(),
  /** Content-Type of `body` as the gateway must send it. */
  content_type: z.string(),
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  /** The JSON envelope when one is answered, minus the fields only the gateway knows. */
  envelope: z.record(z.string(), z.unknown()).nullable(),
  /** The fetched page is an empty application shell or asks for JavaScript (mode=auto escalates). */
  needs_javascript: z.boolean().default(false),
  /** False when a screenshot was asked for but not delivered (billed 0 by the gateway). */
  screenshot_delivered: z.boolean().nullable(),
  session: SessionStateSchema.nullable().default(null),
});
export type ScrapeSuccess = z.infer<typeof ScrapeSuccessSchema>;

export const ScrapeFailureSchema = z.object({
  ...ResultCommon,
  ok: z.literal(false),
  error: WireErrorSchema,
});
export type ScrapeFailure = z.infer<typeof ScrapeFailureSchema>;

export const ScrapeResultSchema = z.discriminatedUnion('ok', [ScrapeSuccessSchema, ScrapeFailureSchema]);
export type ScrapeResult = z.infer<typeof ScrapeResultSchema>;
