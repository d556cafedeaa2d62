import type { BrowserContext } from 'playwright-core';
import { z } from 'zod';
import type { SessionState } from '../../lib/protocol/index.js';

const CookieSchema = z.object({
  name: z.string(),
  value: z.string(),
  domain: z.string(),
  path: z.string().default('/'),
  expires: z.number().default(-1),
  httpOnly: z.boolean().default(false),
  secure: z.boolean().default(false),
  sameSite: z.enum(['Strict', 'Lax', 'None']).default('Lax'),
});

export interface StorageState {
  cookies: Array<z.infer<typeof CookieSchema>>;
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

/** A session's cookies and localStorage as Playwright's `storageState` (unreadable cookies are dropped). */
export function storageStateOf(session: SessionState): StorageState {
  const cookies = session.cookies.flatMap((raw) => {
    const parsed = CookieSchema.safeParse(raw);
    return parsed.success ? [parsed.data] : [];
  });
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
