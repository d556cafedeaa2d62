import { ServiceError } from '../../lib/errors/index.js';
import type { ScrapeSuccess, SessionState } from '../../lib/protocol/index.js';
import type { Db } from '../../lib/store/db.js';
import {
  MAX_SESSION_CONTEXT_BYTES,
  acquireLease,
  assertActive,
  contextBytes,
  findSession,
  fromWireState,
  notFound,
  readContext,
  recordUse,
  releaseLease,
  toWireState,
  type SessionContext,
  type SessionRecord,
} from '../../lib/store/sessions/index.js';
import { sessionIdFrom } from './session-query.js';

/** Added to the scrape budget: a lease outlives the scrape it covers, but a crashed gateway's lease still runs out. */
import { registrableDomainOf, saveDomainScores, withEvidence } from '../../lib/store/sessions/domain-scores.js';

export const LEASE_MARGIN_MS = 30_000;
export const SESSION_CONTEXT_NOT_SAVED = 'SESSION_CONTEXT_NOT_SAVED';

/** A session leased for one scrape. */
export interface SessionCheckout {
  session: SessionRecord;
  context: SessionContext;
  holder: string;
}

/** `session_id` checked before any work (docs/sessions.md): 404 unknown/malformed/other organization, 410 released or expired. */
export async function findScrapeSession(db: Db, rawId: string, organizationId: string): Promise<SessionRecord> {
  const session = await findSession(db, sessionIdFrom(rawId), organizationId);
  if (!session) throw notFound(rawId.slice(0, 64));
  assertActive(session);
  readContext(session);
  return session;
}

/** Takes the single-writer lease (409 BUSY when another scrape holds it) for the scrape `holder`. */
export async function checkOutSession(db: Db, session: SessionRecord, holder: string, leaseMs: number): Promise<SessionCheckout> {
  const leased = await acquireLease(db, session.id, session.organization_id, holder, leaseMs);
  return { session: leased, context: readContext(leased), holder };
}

export function jobSessionState(checkout: SessionCheckout): SessionState {
  return toWireState(checkout.session.id, checkout.context);
}

/**
 * A successful scrape: saves the returned state, counts the use, slides the expiry and frees the lease.
 * A state over 1 MiB is not saved (the previous context stays) and the caller gets a warning. When the
 * lease was lost (released with force meanwhile) the scrape fails with the session's 410.
 */
export async function checkInSession(db: Db, checkout: SessionCheckout, success: ScrapeSuccess): Promise<string[]> {
  const returned = success.session ? fromWireState(success.session, checkout.context) : checkout.context;
  const fits = contextBytes(returned) <= MAX_SESSION_CONTEXT_BYTES;
  const saved = await recordUse(db, checkout.session.id, checkout.holder, fits ? returned : checkout.context);
  if (!saved) {
    const now = await findSession(db, checkout.session.id, checkout.session.organization_id);
    if (!now) throw notFound(checkout.session.id);
    assertActive(now);
    throw new ServiceError('ERR::SESSION::BUSY', `Session ${checkout.session.id} was taken over by another request`, { retryAfterSeconds: 1 });
  }
  return fits ? [] : [SESSION_CONTEXT_NOT_SAVED];
}

/**
 * A session scrape's evidence for its target's domain (`domain_scores`), written while the lease is
 * held: good for a usable page, bad for a challenge or a block, nothing for anything else.
 */
export async function noteDomainEvidence(db: Db, checkout: SessionCheckout, url: string, good: boolean): Promise<void> {
  const domain = registrableDomainOf(url);
  if (domain === null) return;
  const scores = withEvidence(checkout.session.domain_scores, domain, good, Math.floor(Date.now() / 1000));
  checkout.session = { ...checkout.session, domain_scores: scores };
  await saveDomainScores(db, checkout.session.id, checkout.holder, scores);
}

/** A failed scrape counts nothing; the lease is simply handed back. */
export async function returnSession(db: Db, checkout: SessionCheckout): Promise<void> {
  await releaseLease(db, checkout.session.id, checkout.holder);
}
