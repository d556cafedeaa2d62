import { Impit, type Browser } from 'impit';
import { ServiceError } from '../../lib/errors/index.js';
import { toAbortSignal } from '../cancellation.js';
import type { HopRequest, HopResponse, HttpClient } from './hop.js';
import { tooLarge } from './body.js';
import { BoundedBody, headersToRecord, isDirectPlainHttp, MAX_KEPT_CLIENTS } from './hop.js';
import { chromeHeaders } from './chrome-headers.js';
import type { UndiciClient } from './undici-client.js';

/** The Chrome build impit impersonates: TLS ClientHello, HTTP/2 settings and ordered headers. */
export const IMPIT_BROWSER: Browser = 'chrome151';

type ImpitResponse = Awaited<ReturnType<Impit['fetch']>>;

/** Reads the body chunk by chunk from the stream's reader (no async iterator), failing as soon as it passes `maxBytes`. */
async function readStream(response: ImpitResponse, maxBytes: number): Promise<Buffer> {
  const body = new BoundedBody(maxBytes, response.status, () => response.abort());
  const reader = response.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return body.bytes();
      body.add(value);
    }
  } finally {
    reader.releaseLock();
  }
}

/**
 * The body, bounded by `maxBytes`. A body of a declared length sent as it is (no Content-Encoding,
 * which impit would undo into any size, and no Transfer-Encoding, which would override the length)
 * is read whole by impit: creating the web stream alone cost about 60 µs of the event loop.
 */
function readBody(response: ImpitResponse, headers: Record<string, string>, maxBytes: number): Promise<Buffer> {
  const length = headers['content-length'];
  const encoded = (headers['content-encoding'] ?? 'identity') !== 'identity' || headers['transfer-encoding'] !== undefined;
  if (length === undefined || encoded || !/^\d+$/.test(length)) return readStream(response, maxBytes);
  if (Number(length) > maxBytes) {
    response.abort();
    return Promise.reject(tooLarge(maxBytes, response.status));
  }
  return response.bytes().then((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
}

/** impit's error classes are declared in its types but not exported by its module: known by name. */
function isRemoteProtocolError(error: unknown): boolean {
  return error instanceof Error && error.name === 'RemoteProtocolError';
}

/** impersonate=true: Chrome's fingerprint via impit, which also undoes gzip, deflate, br and zstd. */
export class ImpitClient implements HttpClient {
  /** One client per reusable guard lease, kept with its connections; a lease serves one request at a time. */
  private readonly kept = new Map<string, Impit>();

  async send(request: HopRequest): Promise<HopResponse> {
    const reused = request.proxy.reusable && this.kept.has(request.proxy.url);
    const impit = this.clientFor(request.proxy);
    let response: ImpitResponse;
    try {
      response = await impit.fetch(request.url, {
        method: request.method,
        headers: request.headers,
        signal: toAbortSignal(request.signal),
        redirect: 'manual',
        timeout: request.timeoutMs,
      });
    } catch (error) {
      // A kept connection the server closed as the request went out (its keep-alive timeout) is the
      // transient reset the engine already retries for idempotent methods, on a new connection.
      if (reused && isRemoteProtocolError(error)) {
        throw new ServiceError('ERR::UPSTREAM::CONNECTION_RESET', `${new URL(request.url).host} closed a kept connection before answering`, { cause: error });
      }
      throw error;
    }
    const entries: Array<[string, string]> = [];
    response.headers.forEach((value, name) => entries.push([name, value]));
    const headers = headersToRecord(entries);
    return {
      status: response.status,
      headers,
      read: () => readBody(response, headers, request.maxBodyBytes),
      discard: async () => response.abort(),
    };
  }

  /** Drops the kept clients (and with them their connections). */
  close(): void {
    this.kept.clear();
  }

  private clientFor(proxy: HopRequest['proxy']): Impit {
    const kept = proxy.reusable ? this.kept.get(proxy.url) : undefined;
    if (kept) return kept;
    // Direct traffic takes the guard's SOCKS5 listener: it checks, dials, then only pipes bytes.
    const impit = new Impit({ browser: IMPIT_BROWSER, proxyUrl: proxy.socksUrl ?? proxy.url, followRedirects: false });
    if (proxy.reusable) {
      // The guard keeps a bounded number of leases; a client for one it dropped is never asked for again.
      if (this.kept.size >= MAX_KEPT_CLIENTS) this.kept.delete(this.kept.keys().next().value ?? '');
      this.kept.set(proxy.url, impit);
    }
    return impit;
  }
}

/**
 * impersonate=true: impit, except direct plain-HTTP traffic, which has no TLS or HTTP/2 fingerprint
 * to present: undici sends impit's Chrome headers there, connected in this process by the lease's
 * checked dial, without impit's native call and the guard's SOCKS hop (docs/fetch-engine.md, "Plain HTTP").
 */
export class ImpersonatingClient implements HttpClient {
  constructor(
    private readonly impit: ImpitClient,
    private readonly undici: UndiciClient,
  ) {}

  send(request: HopRequest): Promise<HopResponse> {
    if (isDirectPlainHttp(request) && !hasExpect(request.headers)) return this.undici.send(request, chromeHeaders);
    return this.impit.send(request);
  }
}

/** undici refuses to send `Expect` (the gateway already refuses the hop-by-hop headers it also refuses). */
function hasExpect(headers: Record<string, string>): boolean {
  for (const name in headers) if (name.toLowerCase() === 'expect') return true;
  return false;
}
