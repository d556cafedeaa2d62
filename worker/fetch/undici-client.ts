import { ProxyAgent, type Dispatcher } from 'undici';
import type { HopRequest, HopResponse, HttpClient } from './hop.js';
import { isDirectPlainHttp, MAX_KEPT_CLIENTS } from './hop.js';
import { decodeContentEncoding } from './body.js';
import { directAgent } from './direct-agent.js';
import { exchange } from './undici-exchange.js';

/** Headers sent when impersonate=false; custom_headers override them. */
export const PLAIN_DEFAULT_HEADERS: Record<string, string> = {
  'user-agent': 'Mozilla/5.0 (compatible; Trawler/0.1; +https://github.com/trawler)',
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'accept-language': 'en-US,en;q=0.9',
  'accept-encoding': 'gzip, deflate, br, zstd',
};

/** The headers undici sends for a request's own (custom) ones. */
export type HeaderRule = (custom: Record<string, string>) => Record<string, string> | string[];

const plainHeaders: HeaderRule = (custom) => ({ ...PLAIN_DEFAULT_HEADERS, ...custom });

/**
 * impersonate=false, and plain-HTTP targets of impersonate=true (`chromeHeaders`): undici with
 * Node's own TLS; we undo Content-Encoding ourselves. Direct plain-HTTP traffic connects from this
 * process through the lease's checked dial; the rest goes through the guard's HTTP listener.
 */
export class UndiciClient implements HttpClient {
  /** One dispatcher per reusable guard lease and kind, kept with its connections; a lease serves one request at a time. */
  private readonly kept = new Map<string, Dispatcher>();

  async send(request: HopRequest, headerRule: HeaderRule = plainHeaders): Promise<HopResponse> {
    const agent = this.dispatcherFor(request);
    const close = (): void => {
      if (!request.proxy.reusable) void agent.destroy().catch(() => undefined);
    };
    try {
      const response = await exchange(agent, {
        url: new URL(request.url),
        method: request.method,
        headers: headerRule(request.headers),
        signal: request.signal,
        timeoutMs: request.timeoutMs,
        maxBodyBytes: request.maxBodyBytes,
      });
      const { status, headers } = response;
      return {
        status,
        headers,
        read: async () => {
          try {
            return decodeContentEncoding(await response.body(), headers['content-encoding'], request.maxBodyBytes, status);
          } finally {
            close();
          }
        },
        discard: async () => {
          response.discard();
          close();
        },
      };
    } catch (error) {
      close();
      throw error;
    }
  }

  /** Closes the kept agents and their connections. */
  async close(): Promise<void> {
    const agents = [...this.kept.values()];
    this.kept.clear();
    await Promise.all(agents.map((agent) => agent.destroy().catch(() => undefined)));
  }

  private dispatcherFor(request: HopRequest): Dispatcher {
    const { proxy } = request;
    const direct = isDirectPlainHttp(request);
    const key = `${direct ? 'direct' : 'proxy'} ${proxy.url}`;
    const kept = proxy.reusable ? this.kept.get(key) : undefined;
    if (kept) return kept;
    const credentials = Buffer.from(`${proxy.username}:${proxy.password}`).toString('base64');
    const agent = direct ? directAgent(proxy.open) : new ProxyAgent({ uri: proxy.server, token: `Basic ${credentials}` });
    if (proxy.reusable) {
      // The guard keeps a bounded number of leases; an agent for one it dropped is never asked for again.
      const oldest = this.kept.size >= 2 * MAX_KEPT_CLIENTS ? this.kept.keys().next().value : undefined;
      if (oldest !== undefined) {
        void this.kept.get(oldest)?.close().catch(() => undefined);
        this.kept.delete(oldest);
      }
      this.kept.set(key, agent);
    }
    return agent;
  }
}
