import { z } from 'zod';
import { AttemptSchema, TimelineStepSchema, WireErrorSchema } from '../errors/index.js';
import { ScrapeParamsSchema } from '../scrape/params-schema.js';
import { EngineNameSchema } from './engines.js';
import { WorkerEnvelopeSchema } from './worker-envelope.js';

export const SCRAPE_JOB_TYPE = 'trawler.scrape.job.v1';
export const SCRAPE_RESULT_TYPE = 'trawler.scrape.result.v1';

const SAME_SITE = { strict: 'Strict', lax: 'Lax', none: 'None' } as const;
export type SameSite = (typeof SAME_SITE)[keyof typeof SAME_SITE];

/** A cookie's SameSite attribute in any case, folded to Playwright's spelling. */
export const SameSiteSchema = z.string().transform((value, ctx): SameSite => {
  const known = SAME_SITE[value.toLowerCase() as keyof typeof SAME_SITE];
  if (known) return known;
  ctx.addIssue({ code: 'custom', message: 'same_site must be Strict, Lax or None' });
  return z.NEVER;
});

/**
 * A cookie as it crosses the bus: Playwright's shape (camelCase; a leading `.` marks a domain cookie),
 * which the browser engines load directly and the fetch engine's jar reads (docs/sessions.md).
 */
export const WireCookieSchema = z.object({
  name: z.string().min(1),
  value: z.string(),
  domain: z.string().min(1),
  path: z.string().default('/'),
  /** Epoch seconds; -1 for a cookie without expiry. */
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: SameSiteSchema.default('Lax'),
});
export type WireCookie = z.infer<typeof WireCookieSchema>;

/** A page may set cookies a session cannot hold (an empty name): those are dropped, not the whole message. */
const WireCookiesSchema = z.array(z.unknown()).transform((items) =>
  items.flatMap((item) => {
    const parsed = WireCookieSchema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  }),
);

export const SessionStateSchema = z.object({
  session_id: z.string(),
  cookies: WireCookiesSchema,
  local_storage: z.record(z.string(), z.record(z.string(), z.string())),
  session_storage: z.record(z.string(), z.record(z.string(), z.string())),
});
export type SessionState = z.infer<typeof SessionStateSchema>;

/**
 * The managed pool exit the gateway chose for one job (docs/proxy-pools.md). `url` carries the
 * credentials: it travels only on the bus and is never logged or answered; `id` is what results,
 * logs and diagnostics name instead.
 */
export const JobExitSchema = z.object({
  id: z.string(),
  url: z.string(),
  tier: z.enum(['datacenter', 'residential']),
  country: z.string().nullable(),
  provider: z.string().nullable(),
});
export type JobExit = z.infer<typeof JobExitSchema>;

/**
 * Gateway -> worker: one unit of scrape work on one engine. `params` are the scrape parameters the
 * gateway validated and normalised (lib/scrape/params-schema.ts), decoded once where the job arrives.
 */
export const ScrapeJobSchema = z.object({
  type: z.literal(SCRAPE_JOB_TYPE),
  request_id: z.string(),
  project_id: z.string(),
  engine: EngineNameSchema,
  params: ScrapeParamsSchema,
  /** Epoch milliseconds after which the gateway no longer waits for this job. */
  deadline_at: z.number(),
  budget_ms: z.number().int(),
  dispatched_at: z.number(),
  session: SessionStateSchema.nullable().default(null),
  /** A managed pool exit to leave through; null: the caller's `proxy`, else direct. */
  exit: JobExitSchema.nullable().default(null),
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
  /** The document; empty when `envelope` is answered (the envelope travels once, as itself). */
  body: z.string(),
  body_encoding: z.enum(['utf8', 'base64']),
  /** The JSON envelope when one is answered, minus the fields only the gateway knows. */
  envelope: WorkerEnvelopeSchema.nullable(),
  /** The fetched page is an empty application shell or asks for JavaScript (mode=auto escalates). */
  needs_javascript: z.boolean().default(false),
  /** False when a screenshot was asked for but not delivered (billed 0 by the gateway). */
  screenshot_delivered: z.boolean().nullable(),
  session: SessionStateSchema.nullable().default(null),
  /**
   * With ai_extract: the page's markdown for the model when the envelope's `content` is not that
   * markdown already. Read by the gateway and never answered (docs/ai-extract.md).
   */
  model_input: z.string().optional(),
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
