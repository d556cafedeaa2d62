import type { CDPSession, Page, Response } from 'playwright-core';

/** One response the page's own DevTools session saw: its bytes after content decoding, as they arrived. */
interface SeenResponse {
  requestId: string;
  decodedBytes: number;
  claimed: boolean;
  finished: boolean;
  /** Resolves when the body has arrived in full, or the request failed. */
  done: Promise<void>;
  settle: () => void;
}

/** What `bodyOf` found: the decoded size, and the body when it was read. */
export type DecodedBody = { decodedBytes: number; body: Buffer | null } | null;

/** How long to wait for this session's loadingFinished after Playwright's (both come from one browser message stream). */
const FINISH_GRACE_MS = 5_000;

/**
 * The browser decodes a compressed body (gzip, br, zstd...) before anything can read it, and Playwright
 * reads a body whole, so a body small on the wire can be huge when read (a decompression bomb). This
 * DevTools session of its own counts each response's decoded bytes as they arrive (Network.dataReceived
 * carries the count, not the data), so a body is read only once its decoded size is known to fit; and it
 * reads the body by the browser's own request id, so a wrong pairing of Playwright's response with this
 * session's cannot read a body whose size was not checked.
 */
export class DecodedSizes {
  private readonly byKey = new Map<string, SeenResponse[]>();
  private readonly byId = new Map<string, SeenResponse>();
  private readonly methods = new Map<string, string>();

  private constructor(private readonly session: CDPSession) {
    session.on('Network.requestWillBeSent', (event) => this.methods.set(event.requestId, event.request.method));
    session.on('Network.responseReceived', (event) => {
      let settle = () => {};
      const done = new Promise<void>((resolve) => (settle = resolve));
      const seen: SeenResponse = { requestId: event.requestId, decodedBytes: 0, claimed: false, finished: false, done, settle };
      const key = keyOf(this.methods.get(event.requestId) ?? 'GET', event.response.status, event.response.url);
      this.byKey.set(key, [...(this.byKey.get(key) ?? []), seen]);
      this.byId.set(event.requestId, seen);
    });
    session.on('Network.dataReceived', (event) => {
      const seen = this.byId.get(event.requestId);
      if (seen) seen.decodedBytes += event.dataLength;
    });
    const finished = (event: { requestId: string }) => {
      const seen = this.byId.get(event.requestId);
      if (seen) seen.finished = true;
      seen?.settle();
      this.byId.delete(event.requestId);
      this.methods.delete(event.requestId);
    };
    session.on('Network.loadingFinished', finished);
    session.on('Network.loadingFailed', finished);
  }

  /** A session on `page`'s target, or null where the browser offers none (the caller then reads no compressed body). */
  static async attach(page: Page, maxBodyBytes: number): Promise<DecodedSizes | null> {
    try {
      const session = await page.context().newCDPSession(page);
      // This session keeps no body bigger than what the capture would read.
      await session.send('Network.enable', { maxResourceBufferSize: maxBodyBytes });
      return new DecodedSizes(session);
    } catch {
      return null;
    }
  }

  /**
   * The decoded size of `response`'s body once it has arrived, and the body itself when that size is
   * at most `maxBytes`; null when this session did not see the response (a frame or worker of its
   * own target) or the body is gone. `oneAtATime` runs the read.
   */
  async bodyOf(response: Response, maxBytes: number, oneAtATime: <T>(read: () => Promise<T>) => Promise<T>): Promise<DecodedBody> {
    // Once Playwright has the body in full, this session has had the response (its own events come first).
    await response.finished().catch(() => undefined);
    const candidates = this.byKey.get(keyOf(response.request().method(), response.status(), response.url())) ?? [];
    const seen = candidates.find((candidate) => !candidate.claimed);
    if (!seen) return null;
    seen.claimed = true;
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, FINISH_GRACE_MS)));
    await Promise.race([seen.done, grace]).finally(() => clearTimeout(timer));
    // Still arriving as far as this session knows: its size is not known yet.
    if (!seen.finished) return null;
    if (seen.decodedBytes > maxBytes) return { decodedBytes: seen.decodedBytes, body: null };
    try {
      const read = await oneAtATime(() => this.session.send('Network.getResponseBody', { requestId: seen.requestId }));
      const body = Buffer.from(read.body, read.base64Encoded ? 'base64' : 'utf8');
      // Chromium's count and the body agree; a body that still comes out larger is not kept.
      if (body.length > maxBytes) return { decodedBytes: body.length, body: null };
      return { decodedBytes: body.length, body };
    } catch {
      return null;
    }
  }

  async detach(): Promise<void> {
    await this.session.detach().catch(() => undefined);
  }
}

function keyOf(method: string, status: number, url: string): string {
  return `${method.toUpperCase()} ${status} ${url.split('#')[0]}`;
}
