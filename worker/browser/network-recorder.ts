import type { Page, Response } from 'playwright-core';
import {
  CAPTURE_RESOURCE_TYPES,
  type CaptureResourceType,
  type NetworkCapture,
  type NetworkEntry,
} from '../../lib/scrape/network-capture-schema.js';
import { EGRESS_ERROR_HEADER } from '../egress/guard.js';
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

  constructor(
    private readonly capture: NetworkCapture,
    private readonly startedAt: number,
  ) {
    this.matchesUrl = urlMatcher(capture.url_pattern);
  }

  attach(page: Page): void {
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
    if (this.capture.include_bodies && !isRedirect(response.status())) {
      try {
        const body = await response.body();
        const cut = body.subarray(0, this.capture.max_body_bytes);
        const textual = mimeType === null || TEXTUAL.test(mimeType);
        entry.body = textual ? cut.toString('utf8') : cut.toString('base64');
        entry.body_encoding = textual ? 'utf8' : 'base64';
        entry.body_size = body.length;
        entry.body_truncated = body.length > cut.length;
      } catch {
        // Body gone (page navigated away, or the request failed); the entry stays without one.
      }
    }
    this.entries.push(entry);
  }

  async finish(): Promise<{ entries: NetworkEntry[]; dropped: number }> {
    await Promise.allSettled([...this.pending]);
    const entries = [...this.entries].sort((a, b) => a.started_ms - b.started_ms);
    return { entries, dropped: this.dropped };
  }
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
