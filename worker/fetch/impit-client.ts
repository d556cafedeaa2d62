import { Impit, type Browser } from 'impit';
import type { HopRequest, HopResponse, HttpClient } from './hop.js';
import { headersToRecord, readLimited } from './hop.js';

/** The Chrome build impit impersonates: TLS ClientHello, HTTP/2 settings and ordered headers. */
export const IMPIT_BROWSER: Browser = 'chrome151';

async function* iterate(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

/** impersonate=true: Chrome's fingerprint via impit, which also undoes gzip, deflate, br and zstd. */
export class ImpitClient implements HttpClient {
  async send(request: HopRequest): Promise<HopResponse> {
    const impit = new Impit({
      browser: IMPIT_BROWSER,
      proxyUrl: request.proxy.url,
      followRedirects: false,
      timeout: request.timeoutMs,
    });
    const response = await impit.fetch(request.url, {
      method: request.method,
      headers: request.headers,
      signal: request.signal,
      redirect: 'manual',
      timeout: request.timeoutMs,
    });
    const entries: Array<[string, string]> = [];
    response.headers.forEach((value, name) => entries.push([name, value]));
    const headers = headersToRecord(entries);
    return {
      status: response.status,
      headers,
      read: () => readLimited(iterate(response.body), request.maxBodyBytes, response.status, () => response.abort()),
      discard: async () => response.abort(),
    };
  }
}
