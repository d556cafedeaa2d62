import { z } from 'zod';
import { AttemptSchema } from '../errors/index.js';

export const ScreenshotSchema = z.object({ name: z.string(), format: z.string(), data: z.string() });
export type Screenshot = z.infer<typeof ScreenshotSchema>;

/**
 * The JSON envelope as a worker builds it (docs/content.md lists every field): the gateway adds
 * request_id, credits_charged and cache_state and fills diagnostics.attempts. Loose, so a field the
 * pipeline adds reaches the caller before this schema names it.
 */
export const WorkerEnvelopeSchema = z.looseObject({
  url: z.string(),
  final_url: z.string(),
  status: z.number().int(),
  engine: z.string(),
  format: z.enum(['html', 'markdown', 'text', 'pdf']).nullable(),
  content: z.string().nullable(),
  content_encoding: z.enum(['utf8', 'base64']),
  metadata: z.record(z.string(), z.unknown()),
  /** What extract and autoparse found: an object, or null (its shape is the caller's rules'). */
  data: z.unknown(),
  empty_fields: z.array(z.string()),
  links: z.array(z.string()).nullable(),
  network: z.array(z.unknown()).nullable(),
  screenshots: z.array(ScreenshotSchema).nullable(),
  action_results: z.array(z.unknown()).nullable(),
  warnings: z.array(z.string()),
  diagnostics: z.object({ attempts: z.array(AttemptSchema) }),
});
export type WorkerEnvelope = z.infer<typeof WorkerEnvelopeSchema>;
