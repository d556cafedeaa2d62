import { z } from 'zod';
import { storableString } from '../validation/storable.js';

export const NETWORK_CAPTURE_LIMITS = {
  maxEntries: 500,
  defaultMaxEntries: 100,
  maxBodyBytes: 1_048_576,
  defaultMaxBodyBytes: 65_536,
  maxPatternChars: 2_000,
  /** Bytes of body text (UTF-8, or base64 characters) one capture keeps across all its entries. */
  maxTotalBodyBytes: 8 * 1_048_576,
  /** A body declaring a larger Content-Length is not read at all (reading is whole, before any cut). */
  maxBodyReadBytes: 8 * 1_048_576,
} as const;

export const CAPTURE_RESOURCE_TYPES = [
  'xhr',
  'fetch',
  'document',
  'script',
  'stylesheet',
  'image',
  'font',
  'media',
  'other',
] as const;
export type CaptureResourceType = (typeof CAPTURE_RESOURCE_TYPES)[number];

const statusFilter = z.union([
  z.number().int().min(100).max(599),
  z.string().regex(/^[1-5]xx$/i, 'status class must look like 2xx').transform((s) => s.toLowerCase()),
]);

/**
 * `network_capture` filters. Every filter given must match for a response to be recorded; an empty
 * object records XHR and fetch responses with bodies.
 */
export const NetworkCaptureSchema = z.strictObject({
  /** Substring of the URL, or a glob where `*` matches any run of characters when it holds a `*`. */
  url_pattern: storableString().min(1).max(NETWORK_CAPTURE_LIMITS.maxPatternChars).optional(),
  methods: z
    .array(z.string().regex(/^[a-z]+$/i).transform((m) => m.toUpperCase()))
    .min(1)
    .max(10)
    .optional(),
  resource_types: z
    .array(z.string().transform((t) => t.toLowerCase()).pipe(z.enum(CAPTURE_RESOURCE_TYPES)))
    .min(1)
    .default(['xhr', 'fetch']),
  /** Exact statuses (`404`) or classes (`"2xx"`). */
  status: z.array(statusFilter).min(1).max(50).optional(),
  include_bodies: z.boolean().default(true),
  include_request_headers: z.boolean().default(false),
  max_body_bytes: z.number().int().min(0).max(NETWORK_CAPTURE_LIMITS.maxBodyBytes).default(NETWORK_CAPTURE_LIMITS.defaultMaxBodyBytes),
  max_entries: z.number().int().min(1).max(NETWORK_CAPTURE_LIMITS.maxEntries).default(NETWORK_CAPTURE_LIMITS.defaultMaxEntries),
});
export type NetworkCapture = z.infer<typeof NetworkCaptureSchema>;

/** One recorded response, as it appears under `network` in the envelope. */
export interface NetworkEntry {
  url: string;
  method: string;
  resource_type: string;
  status: number;
  status_text: string;
  mime_type: string | null;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  request_headers?: Record<string, string>;
  /** Body as UTF-8 text for textual types, base64 otherwise; null when bodies are off or unreadable. */
  body: string | null;
  body_encoding: 'utf8' | 'base64' | null;
  /** Size of the whole body in bytes (before truncation); null when unknown. */
  body_size: number | null;
  body_truncated: boolean;
  /** Milliseconds from navigation start to the response. */
  started_ms: number;
}

/** Whether a capture asks for classes the default blocking would otherwise drop. */
export function captureWantsImagesOrFonts(capture: NetworkCapture | null): boolean {
  return capture !== null && capture.resource_types.some((t) => t === 'image' || t === 'font');
}
