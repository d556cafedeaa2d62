import type { Page, Response } from 'playwright-core';
import {
  NETWORK_CAPTURE_LIMITS,
  CAPTURE_RESOURCE_TYPES,
  type CaptureResourceType,
  type NetworkCapture,
  type NetworkEntry,
} from '../../lib/scrape/network-capture-schema.js';
import { EGRESS_ERROR_HEADER } from '../egress/guard.js';
import { DecodedSizes } from './decoded-sizes.js';
import { urlMatcher } from './url-pattern.js';

const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|javascript|xml|[\w.+-]*\+xml|x-www-form-urlencoded|graphql))/i;

function statusMatches(status: number, filters: Array<number | string> | undefined): boolean {
  if (filters === undefined) return true;
  return filters.some((f) => (typeof f === 'number' ? f === status : f[0] === String(status)[0]));
}

/**
 * Records the responses a page receives that pass the capture's filters, up to `max_entries`,
 * bodies cut at `max_body_bytes`. `finish()` waits for bodies still being read.
 */
export class NetworkRecorder {
  private readonly entries: NetworkEntry[] = [];
  private readonly pending = new Set<Promise<void>>();
  private readonly matchesUrl: (url: string) => boolean;
  private dropped = 0;
  /** Body bytes this capture may still keep (NETWORK_CAPTURE_LIMITS.maxTotalBodyBytes). */
  private bodyBytesLeft: number = NETWORK_CAPTURE_LIMITS.maxTotalBodyBytes;
  private readonly notes = new Set<string>();
  /** Decoded body sizes, from a DevTools session of the capture's own (null where none could be had). */
  private decoded: DecodedSizes | null = null;
  /** Bodies are read one at a time, so at most one body under the read limit is in memory being read. */
  private reading: Promise<void> = Promise.resolve();
  private readonly oneAtATime = <T>(read: () => Promise<T>): Promise<T> => {
    const run = this.reading.then(read);
    this.reading = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };

  constructor(
    private readonly capture: NetworkCapture,
    private readonly startedAt: number,
  ) {
    this.matchesUrl = urlMatcher(capture.url_pattern);
  }

  async attach(page: Page): Promise<void> {
    if (this.capture.include_bodies) this.decoded = await DecodedSizes.attach(page, NETWORK_CAPTURE_LIMITS.maxBodyReadBytes);
    page.on('response', (response) => {
      if (!this.wants(response)) return;
      if (this.entries.length + this.pending.size >= this.capture.max_entries) {
        this.dropped += 1;
        return;
      }
      const work = this.record(response).finally(() => this.pending.delete(work));
      this.pending.add(work);
    });
  }

  private wants(response: Response): boolean {
    // The guard's own refusals are not target responses.
    if (response.headers()[EGRESS_ERROR_HEADER] !== undefined) return false;
    const request = response.request();
    if (!this.capture.resource_types.includes(captureTypeOf(request.resourceType()))) return false;
    if (this.capture.methods && !this.capture.methods.includes(request.method().toUpperCase())) return false;
    if (!statusMatches(response.status(), this.capture.status)) return false;
    return this.matchesUrl(response.url());
  }

  private async record(response: Response): Promise<void> {
    const request = response.request();
    const headers = response.headers();
    const mimeType = headers['content-type']?.split(';')[0]?.trim().toLowerCase() || null;
    const entry: NetworkEntry = {
      url: response.url(),
      method: request.method(),
      resource_type: request.resourceType(),
      status: response.status(),
      status_text: response.statusText(),
      mime_type: mimeType,
      headers,
      body: null,
      body_encoding: null,
      body_size: null,
      body_truncated: false,
      started_ms: Math.max(0, Date.now() - this.startedAt),
    };
    if (this.capture.include_request_headers) entry.request_headers = request.headers();
    if (this.capture.include_bodies && !isRedirect(response.status())) await this.readBody(response, entry, mimeType);
    this.entries.push(entry);
  }

  /**
   * The body, cut at `max_body_bytes` and within what the capture may still keep. A body is read whole,
   * so one over `maxBodyReadBytes` is not read at all. Its size, checked before reading: decoded, as
   * the capture's DevTools session counted it arriving (decoded-sizes.ts), else, for a body that was
   * not compressed, the declared Content-Length or the size the browser received. A compressed body of
   * unknown decoded size is not read. One past the capture's budget is left out. Either way the entry
   * says `body_truncated` with `body` null, and the envelope carries a NETWORK_CAPTURE_TRUNCATED
   * warning (docs/browser-engines.md).
   */
  private async readBody(response: Response, entry: NetworkEntry, mimeType: string | null): Promise<void> {
    const limit = NETWORK_CAPTURE_LIMITS.maxBodyReadBytes;
    const decoded = await this.decoded?.bodyOf(response, limit, this.oneAtATime);
    let body: Buffer;
    if (decoded) {
      if (decoded.body === null) return this.notRead(entry, decoded.decodedBytes, `NETWORK_CAPTURE_TRUNCATED: bodies over ${limit} bytes are not read`);
      body = decoded.body;
    } else {
      const size = await bodySizeBeforeReading(response);
      if (size > limit) return this.notRead(entry, size, `NETWORK_CAPTURE_TRUNCATED: bodies over ${limit} bytes are not read`);
      if (isCompressed(response)) return this.notRead(entry, size, 'NETWORK_CAPTURE_TRUNCATED: compressed bodies whose decoded size the browser did not report are not read');
      if (this.bodyBytesLeft <= 0) return this.overBudget(entry);
      try {
        await response.finished();
        body = await this.oneAtATime(() => response.body());
      } catch {
        // Body gone (page navigated away, or the request failed); the entry stays without one.
        return;
      }
    }
    if (this.bodyBytesLeft <= 0) {
      entry.body_size = body.length;
      return this.overBudget(entry);
    }
    const textual = mimeType === null || TEXTUAL.test(mimeType);
    // base64 takes 4 characters for 3 bytes: the cut is in body bytes, the budget in kept characters.
    const room = textual ? this.bodyBytesLeft : Math.floor(this.bodyBytesLeft / 4) * 3;
    const cut = body.subarray(0, Math.min(this.capture.max_body_bytes, room));
    entry.body = textual ? cut.toString('utf8') : cut.toString('base64');
    entry.body_encoding = textual ? 'utf8' : 'base64';
    entry.body_size = body.length;
    entry.body_truncated = body.length > cut.length;
    this.bodyBytesLeft -= textual ? cut.length : entry.body.length;
    if (cut.length < Math.min(this.capture.max_body_bytes, body.length)) this.overBudget(null);
  }

  private notRead(entry: NetworkEntry, size: number, note: string): void {
    entry.body_size = Number.isFinite(size) ? size : null;
    entry.body_truncated = true;
    this.notes.add(note);
  }

  private overBudget(entry: NetworkEntry | null): void {
    if (entry) entry.body_truncated = true;
    this.notes.add(`NETWORK_CAPTURE_TRUNCATED: the capture keeps at most ${NETWORK_CAPTURE_LIMITS.maxTotalBodyBytes} bytes of bodies; later bodies are cut or left out`);
  }

  async finish(): Promise<{ entries: NetworkEntry[]; dropped: number; warnings: string[] }> {
    await Promise.allSettled([...this.pending]);
    await this.decoded?.detach();
    const entries = [...this.entries].sort((a, b) => a.started_ms - b.started_ms);
    return { entries, dropped: this.dropped, warnings: [...this.notes] };
  }
}

/** Declared, else as received (encoded bytes, as Content-Length counts them); NaN when the body is gone. */
async function bodySizeBeforeReading(response: Response): Promise<number> {
  const declared = Number(response.headers()['content-length'] ?? Number.NaN);
  if (Number.isFinite(declared)) return declared;
  try {
    return (await response.request().sizes()).responseBodySize;
  } catch {
    return Number.NaN;
  }
}

/** Content-Encoding other than identity: the browser decodes it, so the size on the wire says nothing of the body's. */
function isCompressed(response: Response): boolean {
  const coding = response.headers()['content-encoding']?.trim().toLowerCase();
  return coding !== undefined && coding !== '' && coding !== 'identity';
}

function isRedirect(status: number): boolean {
  return status >= 300 && status < 400;
}

function captureTypeOf(playwrightType: string): CaptureResourceType {
  if (playwrightType === 'eventsource') return 'fetch';
  if (playwrightType === 'texttrack') return 'media';
  const known: readonly string[] = CAPTURE_RESOURCE_TYPES;
  return known.includes(playwrightType) ? (playwrightType as CaptureResourceType) : 'other';
}
