import type { Attempt, TimelineStep } from '../lib/errors/index.js';
import type { Logger } from '../lib/log.js';
import type { Blocked, EngineName, ProxyUse, ScrapeJob, SessionState } from '../lib/protocol/index.js';
import type { JobSignal } from './cancellation.js';

/**
 * What an engine hands back for one job before the content pipeline runs. Engines throw a
 * ServiceError (with diagnostics) for every failure; the runner turns it into a wire failure.
 */
export interface RawPage {
  finalUrl: string;
  status: number;
  /** Response headers, lower-case names. */
  headers: Record<string, string>;
  /** The response's media type without parameters, e.g. `text/html`, `application/pdf`. */
  mediaType: string;
  /** Decoded document text for textual media types; null for binary bodies. */
  text: string | null;
  /** Raw (decompressed) bytes of the body. */
  body: Buffer;
  /** A rendered PDF of the page (response_format=pdf on chromium). */
  pdf?: Buffer;
  /** Screenshots taken, base64, in the order asked (screenshot flag first, then action steps). */
  screenshots?: Array<{ name: string; format: string; data: string }>;
  /** Network capture entries (network_capture). */
  network?: unknown[];
  /** Results of `evaluate` action steps, in step order. */
  actionResults?: unknown[];
  warnings: string[];
  attempts: Attempt[];
  timeline: TimelineStep[];
  bytesIn: number;
  proxyBytes: number;
  proxy: ProxyUse;
  upstreamMs: number | null;
  /** Set when a bot challenge of a named vendor was recognised; the runner fails the job then. */
  blocked: Blocked | null;
  /** Session state after the run, when the job carried one. */
  session?: SessionState | null;
}

export interface EngineContext {
  workerId: string;
  /** Where the runner reports failures it did not expect (internal errors), with their cause. */
  logger?: Logger;
  /** Aborted when the deadline passes or the worker is force-stopped. */
  signal: JobSignal;
}

export interface Engine {
  readonly name: EngineName;
  /** How many jobs this engine runs at once in this process. */
  readonly capacity: number;
  start(): Promise<void>;
  fetch(job: ScrapeJob, context: EngineContext): Promise<RawPage>;
  stop(): Promise<void>;
}
