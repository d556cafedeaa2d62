/**
 * What one remote-browser connection may do over CDP (docs/remote-browser.md "CDP filtering").
 * The connection owns the browser contexts it was given or created; every message is checked
 * against that ownership, and methods that reach the host or the shared browser are refused.
 */

export interface CdpMessage {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  sessionId?: string;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export type ClientVerdict =
  | { kind: 'forward'; message: CdpMessage }
  | { kind: 'refuse'; reason: string }
  | { kind: 'answer'; result: Record<string, unknown> };

/** Never allowed, whatever the session: they reach the host, the shared browser or other callers. */
const REFUSED_METHODS = new Set([
  'Browser.close',
  'Browser.crash',
  'Browser.crashGpuProcess',
  'Browser.executeBrowserCommand',
  'Browser.getHistograms',
  'Browser.getHistogram',
  'Browser.getBrowserCommandLine',
  'Browser.addPrivacySandboxEnrollmentOverride',
  'Target.exposeDevToolsProtocol',
  'Target.setRemoteLocations',
  'Target.openDevTools',
  'DOM.setFileInputFiles',
  'DOM.getFileInfo',
  'Network.loadNetworkResource',
  'Page.setInterceptFileChooserDialog',
  'Page.generateTestReport',
  'SystemInfo.getProcessInfo',
  'Memory.getAllTimeSamplingProfile',
  'Memory.getBrowserSamplingProfile',
]);

/** Whole domains that act on the host or the browser process, not on a page. */
const REFUSED_DOMAINS = new Set(['Tethering', 'Extensions', 'PWA', 'Cast', 'BluetoothEmulation', 'FileSystem']);

/** Methods that name a context in `browserContextId`, the owned default used when they do not. */
const CONTEXT_SCOPED = new Set([
  'Target.createTarget',
  'Target.disposeBrowserContext',
  'Browser.setDownloadBehavior',
  'Browser.grantPermissions',
  'Browser.resetPermissions',
  'Browser.setPermission',
  'Storage.getCookies',
  'Storage.setCookies',
  'Storage.clearCookies',
]);

/** Navigation schemes a connection may open; file:, chrome:, devtools: and the rest are refused. */
const NAVIGABLE_SCHEMES = new Set(['http:', 'https:', 'about:', 'data:']);

export function navigable(url: unknown): boolean {
  if (url === undefined || url === '') return true;
  if (typeof url !== 'string') return false;
  try {
    return NAVIGABLE_SCHEMES.has(new URL(url).protocol);
  } catch {
    return false;
  }
}

export interface ConnectionPolicyOptions {
  /** The context made for this connection; clients see it as the browser's default context. */
  defaultContextId: string;
  /** Proxy (the connection's egress-guard lease) forced onto every context the client creates. */
  proxyServer: string;
}

/** Ownership of contexts, targets and sessions for one connection, and the verdicts built on it. */
export class ConnectionPolicy {
  private readonly contexts = new Set<string>();
  private readonly targets = new Map<string, string>();
  private readonly sessions = new Set<string>();
  /** Requests whose answer needs rewriting, by client id. */
  private readonly pending = new Map<number, string>();
  /** Browser-target sessions asked for and not yet attached (Playwright's newCDPSession opens one). */
  private browserAttaches = 0;
  refusals = 0;

  constructor(private readonly options: ConnectionPolicyOptions) {
    this.contexts.add(options.defaultContextId);
  }

  ownsContext(id: unknown): boolean {
    return typeof id === 'string' && this.contexts.has(id);
  }

  /** A client message: forwarded (maybe rewritten), refused, or answered here. */
  fromClient(message: CdpMessage): ClientVerdict {
    const method = message.method;
    if (typeof method !== 'string' || typeof message.id !== 'number') return this.refuse('Malformed CDP message');
    if (message.sessionId !== undefined && !this.sessions.has(message.sessionId)) return this.refuse('Unknown session');
    if (REFUSED_METHODS.has(method) || REFUSED_DOMAINS.has(method.split('.')[0])) return this.refuse(`${method} is not allowed on the remote browser`);
    const params: Record<string, unknown> = { ...(message.params ?? {}) };
    if (CONTEXT_SCOPED.has(method)) {
      if (params.browserContextId === undefined) params.browserContextId = this.options.defaultContextId;
      else if (!this.ownsContext(params.browserContextId)) return this.refuse('That browser context belongs to another connection');
    }
    const targetId = params.targetId;
    if (targetId !== undefined && method.startsWith('Target.') && !this.targets.has(String(targetId))) {
      return this.refuse('That target belongs to another connection');
    }
    switch (method) {
      case 'Target.createBrowserContext':
        // Every context the client makes goes through this connection's egress-guard lease.
        params.proxyServer = this.options.proxyServer;
        params.proxyBypassList = '<-loopback>';
        params.disposeOnDetach = true;
        this.pending.set(message.id, method);
        break;
      case 'Target.disposeBrowserContext':
        if (params.browserContextId === this.options.defaultContextId) return this.refuse('The connection\'s own context is closed with the connection');
        break;
      case 'Target.getBrowserContexts':
        return { kind: 'answer', result: { browserContextIds: [...this.contexts].filter((id) => id !== this.options.defaultContextId) } };
      case 'Target.attachToBrowserTarget':
        // A browser-level session has no more power than the root connection: the same checks apply.
        this.browserAttaches += 1;
        break;
      case 'Target.getTargets':
        this.pending.set(message.id, method);
        break;
      case 'Browser.setDownloadBehavior':
      case 'Page.setDownloadBehavior':
        // Nothing is written to the host's disk: downloads are denied whatever was asked.
        params.behavior = 'deny';
        delete params.downloadPath;
        break;
      case 'Page.navigate':
      case 'Target.createTarget':
        if (!navigable(params.url)) return this.refuse('Only http, https, about and data URLs can be opened');
        break;
    }
    return { kind: 'forward', message: { ...message, params } };
  }

  /**
   * A browser message: delivered (maybe rewritten) to the client, or dropped (null). `release` is
   * called with the session of another connection's target this one was auto-attached to: the relay
   * resumes and detaches it, so that target never waits on a debugger that will not answer.
   */
  fromBrowser(message: CdpMessage, release: (sessionId: string) => void): CdpMessage | null {
    if (message.sessionId !== undefined && !this.sessions.has(message.sessionId)) return null;
    if (message.id !== undefined) return this.answer(message);
    const params = message.params ?? {};
    switch (message.method) {
      case 'Target.attachedToTarget': {
        const info = params.targetInfo as { targetId: string; type?: string; browserContextId?: string } | undefined;
        if (info?.type === 'browser' && this.browserAttaches > 0) {
          this.browserAttaches -= 1;
          this.sessions.add(String(params.sessionId));
          return message;
        }
        if (!info || !this.ownsContext(info.browserContextId)) {
          release(String(params.sessionId));
          return null;
        }
        this.targets.set(info.targetId, info.browserContextId!);
        this.sessions.add(String(params.sessionId));
        return message;
      }
      case 'Target.detachedFromTarget':
        if (!this.sessions.delete(String(params.sessionId))) return null;
        return message;
      case 'Target.targetCreated':
      case 'Target.targetInfoChanged': {
        const info = params.targetInfo as { targetId: string; browserContextId?: string } | undefined;
        if (!info || !this.ownsContext(info.browserContextId)) return null;
        this.targets.set(info.targetId, info.browserContextId!);
        return message;
      }
      case 'Target.targetDestroyed':
      case 'Target.targetCrashed':
        return this.targets.has(String(params.targetId)) ? message : null;
      case 'Browser.downloadWillBegin':
      case 'Browser.downloadProgress':
        return null;
    }
    return message;
  }

  private answer(message: CdpMessage): CdpMessage {
    const method = this.pending.get(message.id!);
    if (method === undefined || !message.result) return message;
    this.pending.delete(message.id!);
    if (method === 'Target.createBrowserContext') {
      this.contexts.add(String(message.result.browserContextId));
    } else if (method === 'Target.getTargets') {
      const infos = (message.result.targetInfos as Array<{ browserContextId?: string }>) ?? [];
      return { ...message, result: { targetInfos: infos.filter((info) => this.ownsContext(info.browserContextId)) } };
    }
    return message;
  }

  private refuse(reason: string): ClientVerdict {
    this.refusals += 1;
    return { kind: 'refuse', reason };
  }
}
