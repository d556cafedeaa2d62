import type { BrowserContext } from 'playwright-core';
import type { SessionState, WireCookie } from '../../lib/protocol/index.js';

export interface StorageState {
  cookies: WireCookie[];
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

/** A session's cookies (the job's decoded wire cookies, Playwright's shape) and localStorage as Playwright's `storageState`. */
export function storageStateOf(session: SessionState): StorageState {
  const cookies = session.cookies;
  const origins = Object.entries(session.local_storage).map(([origin, items]) => ({
    origin,
    localStorage: Object.entries(items).map(([name, value]) => ({ name, value })),
  }));
  return { cookies, origins };
}

/** The context's cookies and localStorage after the render, in the session wire shape. */
export async function sessionStateAfter(context: BrowserContext, before: SessionState): Promise<SessionState> {
  const state = await context.storageState();
  const localStorage: Record<string, Record<string, string>> = {};
  for (const origin of state.origins) {
    localStorage[origin.origin] = Object.fromEntries(origin.localStorage.map((item) => [item.name, item.value]));
  }
  return {
    session_id: before.session_id,
    cookies: state.cookies.map((cookie) => ({ ...cookie })),
    local_storage: localStorage,
    // Playwright's storage state has no sessionStorage; the stored one is carried over unchanged.
    session_storage: before.session_storage,
  };
}
