import WebSocket, { type RawData } from 'ws';
import type { EgressGuard, EgressLease } from '../../egress/guard.js';
import { ConnectionPolicy, type CdpMessage } from './cdp-policy.js';
import { LeaseProxy } from './lease-proxy.js';

/** Why a remote-browser connection ended, with the WebSocket close code the client sees. */
export const CLOSE_CODES = {
  client: 1000,
  ttl: 4000,
  idle: 4001,
  browser: 1011,
  shutdown: 1001,
} as const;
export type EndReason = keyof typeof CLOSE_CODES;

export interface RemoteSessionOptions {
  requestId: string;
  ttlMs: number;
  idleMs: number;
}

export interface SessionEnd {
  reason: EndReason;
  durationMs: number;
  refusals: number;
}

/** The relay's own requests use ids far above any client's, so their answers are never delivered. */
const OWN_ID_BASE = 2 ** 30; // CDP ids are int32
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;

/**
 * One remote-browser connection: a browser context of its own on the shared browser, its traffic
 * through an egress-guard lease, every CDP message through the connection's policy. Opened before
 * the HTTP upgrade is answered (a failure is still a problem+json), then attached to the client.
 */
export class RemoteSession {
  private ownId = OWN_ID_BASE;
  private readonly own = new Map<number, (message: CdpMessage) => void>();
  private policy: ConnectionPolicy | null = null;
  private ended: Promise<SessionEnd> | null = null;

  private constructor(
    private readonly browser: WebSocket,
    private readonly lease: EgressLease,
    private readonly proxy: LeaseProxy,
    private readonly options: RemoteSessionOptions,
  ) {}

  static async open(endpoint: string, guard: EgressGuard, options: RemoteSessionOptions): Promise<RemoteSession> {
    const lease = guard.lease({ requestId: options.requestId, upstreamProxy: null });
    let proxy: LeaseProxy | null = null;
    let browser: WebSocket | null = null;
    try {
      proxy = await LeaseProxy.start(lease);
      const socket = new WebSocket(endpoint, { perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
      browser = socket;
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      const session = new RemoteSession(socket, lease, proxy, options);
      socket.on('message', (data: RawData) => session.onBrowser(data));
      const created = await session.call('Target.createBrowserContext', { disposeOnDetach: true, proxyServer: proxy.url, proxyBypassList: '<-loopback>' });
      const contextId = created.result?.browserContextId;
      if (typeof contextId !== 'string') throw new Error(`Could not create a browser context: ${created.error?.message ?? 'no id'}`);
      session.policy = new ConnectionPolicy({ defaultContextId: contextId, proxyServer: proxy.url });
      return session;
    } catch (error) {
      browser?.terminate();
      await proxy?.close();
      lease.release();
      throw error;
    }
  }

  /** Relays until the client closes, the TTL or idle timeout passes, or the browser goes; cleans up once. */
  attach(client: WebSocket, started = Date.now()): Promise<SessionEnd> {
    this.ended ??= new Promise<SessionEnd>((resolve) => {
      let finished = false;
      const finish = (reason: EndReason): void => {
        if (finished) return;
        finished = true;
        clearTimeout(ttl);
        clearTimeout(idle);
        if (client.readyState === WebSocket.OPEN) client.close(CLOSE_CODES[reason], reason);
        const refusals = this.policy?.refusals ?? 0;
        void this.cleanUp().then(() => resolve({ reason, durationMs: Date.now() - started, refusals }));
      };
      const ttl = setTimeout(() => finish('ttl'), Math.max(0, started + this.options.ttlMs - Date.now()));
      let idle = setTimeout(() => finish('idle'), this.options.idleMs);
      this.deliver = (message) => {
        if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify(message));
      };
      client.on('message', (data: RawData) => {
        clearTimeout(idle);
        idle = setTimeout(() => finish('idle'), this.options.idleMs);
        this.onClient(data);
      });
      client.once('close', () => finish('client'));
      client.on('error', () => finish('client'));
      this.browser.once('close', () => finish('browser'));
      this.end = finish;
    });
    return this.ended;
  }

  /** Ends the connection from outside (gateway shutdown). */
  end: (reason: EndReason) => void = () => undefined;

  private deliver: (message: CdpMessage) => void = () => undefined;

  private onClient(data: RawData): void {
    let message: CdpMessage;
    try {
      message = JSON.parse(data.toString()) as CdpMessage;
    } catch {
      return;
    }
    const verdict = this.policy!.fromClient(message);
    if (verdict.kind === 'forward') this.browser.send(JSON.stringify(verdict.message));
    else if (verdict.kind === 'answer') this.deliver({ id: message.id, result: verdict.result, sessionId: message.sessionId });
    else this.deliver({ id: message.id, error: { code: -32000, message: verdict.reason }, sessionId: message.sessionId });
  }

  private onBrowser(data: RawData): void {
    const message = JSON.parse(data.toString()) as CdpMessage;
    if (message.id !== undefined && message.id >= OWN_ID_BASE) {
      this.own.get(message.id)?.(message);
      this.own.delete(message.id);
      return;
    }
    if (!this.policy) return;
    const delivered = this.policy.fromBrowser(message, (sessionId) => {
      void this.call('Runtime.runIfWaitingForDebugger', {}, sessionId);
      void this.call('Target.detachFromTarget', { sessionId });
    });
    if (delivered) this.deliver(delivered);
  }

  private call(method: string, params: Record<string, unknown>, sessionId?: string): Promise<CdpMessage> {
    const id = (this.ownId += 1);
    return new Promise<CdpMessage>((resolve) => {
      if (this.browser.readyState !== WebSocket.OPEN) {
        resolve({ id, error: { code: -32000, message: 'browser connection closed' } });
        return;
      }
      this.own.set(id, resolve);
      this.browser.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  }

  private async cleanUp(): Promise<void> {
    // Closing the browser connection disposes the contexts it created (disposeOnDetach), pages and all.
    if (this.browser.readyState === WebSocket.OPEN) {
      await new Promise<void>((resolve) => {
        this.browser.once('close', () => resolve());
        this.browser.close();
        setTimeout(() => {
          this.browser.terminate();
          resolve();
        }, 2_000).unref();
      });
    }
    for (const resolve of this.own.values()) resolve({ error: { code: -32000, message: 'closed' } });
    this.own.clear();
    await this.proxy.close();
    this.lease.release();
  }
}
