import type { CdpMessage } from './cdp-policy.js';

/** localStorage per origin, as a session stores it (`local_storage`, Playwright's storageState origins). */
export type OriginStorage = Record<string, Record<string, string>>;

/** The relay's own CDP calls on its browser connection, and the events of a session it attached itself. */
export interface OwnCdp {
  call(method: string, params: Record<string, unknown>, sessionId?: string): Promise<CdpMessage>;
  onSessionEvents(sessionId: string, handler: ((message: CdpMessage) => void) | null): void;
}

/** Origins a connection saves at most, each visited by a hidden page at the end. */
export const MAX_STORAGE_ORIGINS = 50;
const EMPTY_PAGE = Buffer.from('<!DOCTYPE html><html><head><link rel="icon" href="data:,"></head><body></body></html>').toString('base64');
/** How often the hidden page is checked for having committed the navigation to the origin. */
const COMMIT_CHECKS = 100;

/** The origin of an http(s) URL, or null (about:, data:, chrome:, malformed). */
export function httpOrigin(url: unknown): string | null {
  if (typeof url !== 'string' || !/^https?:/i.test(url)) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}

/**
 * Runs `expression` in a hidden page of the context at each origin (docs/remote-browser.md "Sessions"):
 * every request of that page is answered by the relay itself (Fetch.fulfillRequest with an empty page),
 * so nothing reaches the network and the origin's own server never sees the visit, as Playwright does
 * for storageState. Answers each origin's value (null where the page could not get there).
 */
async function atEachOrigin<T>(cdp: OwnCdp, contextId: string, origins: string[], expression: (origin: string) => string): Promise<Map<string, T>> {
  const values = new Map<string, T>();
  if (origins.length === 0) return values;
  const created = await cdp.call('Target.createTarget', { url: 'about:blank', browserContextId: contextId });
  const targetId = created.result?.targetId;
  if (typeof targetId !== 'string') throw new Error(`no storage page: ${created.error?.message ?? 'no target'}`);
  let sessionId: string | null = null;
  try {
    const attached = await cdp.call('Target.attachToTarget', { targetId, flatten: true });
    if (typeof attached.result?.sessionId !== 'string') throw new Error(`storage page not attached: ${attached.error?.message ?? 'no session'}`);
    const session: string = attached.result.sessionId;
    sessionId = session;
    cdp.onSessionEvents(session, (message) => {
      if (message.method !== 'Fetch.requestPaused') return;
      void cdp.call(
        'Fetch.fulfillRequest',
        { requestId: message.params?.requestId, responseCode: 200, responseHeaders: [{ name: 'content-type', value: 'text/html; charset=utf-8' }], body: EMPTY_PAGE },
        session,
      );
    });
    const enabled = await cdp.call('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] }, session);
    if (enabled.error) throw new Error(`storage page cannot answer its own requests: ${enabled.error.message}`);
    await cdp.call('Runtime.runIfWaitingForDebugger', {}, session);
    for (const origin of origins) {
      const navigated = await cdp.call('Page.navigate', { url: `${origin}/` }, session);
      if (navigated.error || navigated.result?.errorText) continue;
      for (let check = 0; check < COMMIT_CHECKS; check += 1) {
        const evaluated = await cdp.call('Runtime.evaluate', { expression: `location.origin === ${JSON.stringify(origin)} ? (${expression(origin)}) : undefined`, returnByValue: true }, session);
        const result = evaluated.result?.result as { value?: T } | undefined;
        if (result && result.value !== undefined) {
          values.set(origin, result.value);
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  } finally {
    if (sessionId !== null) cdp.onSessionEvents(sessionId, null);
    await cdp.call('Target.closeTarget', { targetId });
  }
  return values;
}

/** Loads a session's localStorage into the context before the client sees it. */
export async function loadLocalStorage(cdp: OwnCdp, contextId: string, storage: OriginStorage): Promise<void> {
  const origins = Object.keys(storage).filter((origin) => httpOrigin(origin) === origin);
  const loaded = await atEachOrigin<boolean>(cdp, contextId, origins, (origin) => {
    const items = JSON.stringify(storage[origin]);
    return `(() => { for (const [name, value] of Object.entries(${items})) localStorage.setItem(name, value); return true; })()`;
  });
  const missed = origins.filter((origin) => !loaded.has(origin));
  if (missed.length > 0) throw new Error(`could not load the session's localStorage of ${missed.join(', ')}`);
}

/** The context's localStorage of `origins` at the end of the connection (an origin with none is left out). */
export async function readLocalStorage(cdp: OwnCdp, contextId: string, origins: string[]): Promise<OriginStorage> {
  const read = await atEachOrigin<Record<string, string>>(cdp, contextId, origins.slice(0, MAX_STORAGE_ORIGINS), () => 'Object.fromEntries(Object.entries(localStorage))');
  const storage: OriginStorage = {};
  for (const [origin, items] of read) if (Object.keys(items).length > 0) storage[origin] = items;
  return storage;
}
