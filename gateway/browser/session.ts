import type { SessionState, WireCookie } from '../../lib/protocol/index.js';
import type { Db } from '../../lib/store/db.js';
import { MAX_SESSION_CONTEXT_BYTES, contextBytes, fromWireState, recordUse } from '../../lib/store/sessions/index.js';
import { LEASE_MARGIN_MS, checkOutSession, findScrapeSession, jobSessionState, returnSession, type SessionCheckout } from '../sessions/scrape-session.js';

/** A session leased for one remote-browser connection: its cookies and localStorage go in, and come back out at the end. */
export interface BrowserSessionCheckout {
  checkout: SessionCheckout;
  state: SessionState;
}

/** `session_id` as a scrape checks it (404 unknown, 410 released or expired, 409 busy), leased for the whole TTL. */
export async function checkOutBrowserSession(db: Db, rawId: string, organizationId: string, holder: string, ttlMs: number): Promise<BrowserSessionCheckout> {
  const session = await findScrapeSession(db, rawId, organizationId);
  const checkout = await checkOutSession(db, session, holder, ttlMs + LEASE_MARGIN_MS);
  return { checkout, state: jobSessionState(checkout) };
}

/**
 * Saves the cookies and localStorage the connection ended with (sessionStorage is kept as it was:
 * docs/remote-browser.md "Sessions") and frees the lease. Without cookies (the browser or the worker
 * went) or over 1 MiB, the session keeps its previous context; without localStorage (it could not be
 * read), its previous localStorage.
 */
export async function checkInBrowserSession(
  db: Db,
  taken: BrowserSessionCheckout,
  cookies: WireCookie[] | null,
  localStorage: SessionState['local_storage'] | null = null,
): Promise<boolean> {
  if (cookies !== null) {
    const returned = fromWireState({ ...taken.state, cookies, local_storage: localStorage ?? taken.state.local_storage }, taken.checkout.context);
    if (contextBytes(returned) <= MAX_SESSION_CONTEXT_BYTES) {
      if (await recordUse(db, taken.checkout.session.id, taken.checkout.holder, returned)) return true;
    }
  }
  await returnSession(db, taken.checkout);
  return false;
}
