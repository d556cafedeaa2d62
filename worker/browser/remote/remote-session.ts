import WebSocket, { type RawData } from 'ws';
import { controlFrame, isControlFrame, readControl, type WireCookie } from '../../../lib/protocol/index.js';
import type { EgressGuard, EgressLease } from '../../egress/guard.js';
import { toCdpCookies, toWireCookies } from './cdp-cookies.js';
import { ConnectionPolicy, type CdpMessage } from './cdp-policy.js';
import { MAX_STORAGE_ORIGINS, httpOrigin, loadLocalStorage, readLocalStorage, type OriginStorage } from './cdp-storage.js';
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
  /** The caller's proxy or a pool exit, behind the egress guard as for a scrape. */
  upstreamProxy?: string | null;
  /** A pool exit (the deployment's own, not checked as a caller's proxy is). */
  trustedUpstream?: boolean;
  /** Cookies set in the connection's context before it is handed over (a session's). */
  cookies?: WireCookie[];
  /** localStorage per origin set in the context before it is handed over (a session's). */
  localStorage?: OriginStorage;
  /** Send the context's cookies and localStorage back to the relay's peer in a control frame when the connection ends. */
  returnCookies?: boolean;
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
  private contextId = '';
  private ended: Promise<SessionEnd> | null = null;
  /** Events of the sessions the relay attached itself (its hidden storage page). */
  private readonly ownSessions = new Map<string, (message: CdpMessage) => void>();
  /** http(s) origins the connection's pages went to: their localStorage is saved at the end. */
  private readonly origins = new Set<string>();
  /** Set once the connection ends: the client is gone, nothing more is relayed to it. */
  private closing = false;

  private constructor(
    private readonly browser: WebSocket,
    private readonly lease: EgressLease,
    private readonly proxy: LeaseProxy,
    private readonly options: RemoteSessionOptions,
  ) {}

  static async open(endpoint: string, guard: EgressGuard, options: RemoteSessionOptions): Promise<RemoteSession> {
    const lease = guard.lease({ requestId: options.requestId, upstreamProxy: options.upstreamProxy ?? null, trustedUpstream: options.trustedUpstream });
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
      session.contextId = contextId;
      // Before the policy exists: the hidden page that loads the storage is never shown to the client.
      if (options.localStorage && Object.keys(options.localStorage).length > 0) {
        await loadLocalStorage(session, contextId, options.localStorage);
        for (const origin of Object.keys(options.localStorage)) session.origins.add(origin);
      }
      session.policy = new ConnectionPolicy({ defaultContextId: contextId, proxyServer: proxy.url });
      if (options.cookies && options.cookies.length > 0) {
        const set = await session.call('Storage.setCookies', { browserContextId: contextId, cookies: toCdpCookies(options.cookies) });
        if (set.error) throw new Error(`Could not load the session's cookies: ${set.error.message}`);
      }
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
        const refusals = this.policy?.refusals ?? 0;
        this.closing = true;
        void (async () => {
          if (this.options.returnCookies && reason !== 'browser' && client.readyState === WebSocket.OPEN) {
            const cookies = await this.contextCookies();
            const localStorage = await this.contextLocalStorage();
            if (cookies && client.readyState === WebSocket.OPEN) client.send(controlFrame(localStorage ? { cookies, local_storage: localStorage } : { cookies }));
          }
          if (client.readyState === WebSocket.OPEN) client.close(CLOSE_CODES[reason], reason);
          await this.cleanUp();
          resolve({ reason, durationMs: Date.now() - started, refusals });
        })();
      };
      const ttl = setTimeout(() => finish('ttl'), Math.max(0, started + this.options.ttlMs - Date.now()));
      let idle = setTimeout(() => finish('idle'), this.options.idleMs);
      this.deliver = (message) => {
        if (client.readyState === WebSocket.OPEN) client.send(JSON.stringify(message));
      };
      client.on('message', (data: RawData) => {
        if (isControlFrame(data)) {
          // The relay's peer (the gateway) says its client went: end as a client close, cookies saved.
          if (readControl(data)) finish('client');
          return;
        }
        if (this.closing) return;
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

  /** Disposes a session that was never attached (its ticket expired unclaimed). */
  async discard(): Promise<void> {
    if (this.ended) return;
    this.ended = Promise.resolve({ reason: 'client', durationMs: 0, refusals: 0 });
    await this.cleanUp();
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
    if (verdict.kind === 'forward') {
      this.noteOrigin(verdict.message.params?.url);
      this.browser.send(JSON.stringify(verdict.message));
    }
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
    if (message.sessionId !== undefined && this.ownSessions.has(message.sessionId)) {
      this.ownSessions.get(message.sessionId)!(message);
      return;
    }
    if (!this.policy) return;
    if (this.closing) {
      // Nothing more reaches the client once the connection ends (it may still be attached: TTL, idle); a page its auto-attach paused (the hidden storage page) is let go.
      if (message.method === 'Target.attachedToTarget' && message.params?.waitingForDebugger === true) {
        void this.call('Runtime.runIfWaitingForDebugger', {}, String(message.params.sessionId));
      }
      return;
    }
    const params = message.params ?? {};
    this.noteOrigin((params.frame as { url?: unknown } | undefined)?.url);
    this.noteOrigin((params.targetInfo as { url?: unknown } | undefined)?.url);
    const delivered = this.policy.fromBrowser(message, (sessionId) => {
      void this.call('Runtime.runIfWaitingForDebugger', {}, sessionId);
      void this.call('Target.detachFromTarget', { sessionId });
    });
    if (delivered) this.deliver(delivered);
  }

  private noteOrigin(url: unknown): void {
    const origin = httpOrigin(url);
    if (origin !== null && this.origins.size < MAX_STORAGE_ORIGINS) this.origins.add(origin);
  }

  /** The relay's own calls and events (cdp-storage.ts's OwnCdp). */
  onSessionEvents(sessionId: string, handler: ((message: CdpMessage) => void) | null): void {
    if (handler) this.ownSessions.set(sessionId, handler);
    else this.ownSessions.delete(sessionId);
  }

  call(method: string, params: Record<string, unknown>, sessionId?: string): Promise<CdpMessage> {
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

  private async contextCookies(): Promise<WireCookie[] | null> {
    const answer = await this.call('Storage.getCookies', { browserContextId: this.contextId });
    const cookies = answer.result?.cookies;
    return Array.isArray(cookies) ? toWireCookies(cookies) : null;
  }

  /** The localStorage of the origins the connection went to, or null when it could not be read (the session keeps its own). */
  private async contextLocalStorage(): Promise<OriginStorage | null> {
    try {
      return await readLocalStorage(this, this.contextId, [...this.origins]);
    } catch {
      return null;
    }
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
