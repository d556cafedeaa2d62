import {
  activeLease,
  readContext,
  sessionStatus,
  summariseContext,
  type ContextSummary,
  type SessionRecord,
} from '../../lib/store/sessions/index.js';

export const CONTEXT_WARNING =
  'This context holds live credentials (cookies, storage). It is destroyed when the session is released, deleted or expires; keep any copy as safely as a password.';

/** The session object (`Session` in the API reference). Optional members are omitted, not null, when they do not apply. */
export function sessionBody(session: SessionRecord, now: Date = new Date(), warnings: string[] = []): Record<string, unknown> {
  const status = sessionStatus(session, now);
  const lease = status === 'active' ? activeLease(session, now) : null;
  return {
    id: session.id,
    project_id: session.project_id,
    engine: session.engine,
    status,
    sticky_key: session.sticky_key,
    proxy: session.proxy,
    created_at: session.created_at.toISOString(),
    last_used_at: session.last_used_at?.toISOString() ?? null,
    expires_at: session.expires_at.toISOString(),
    ...(session.hard_expires_at ? { hard_expires_at: session.hard_expires_at.toISOString() } : {}),
    ...(session.released_at ? { released_at: session.released_at.toISOString() } : {}),
    usage_count: session.usage_count,
    context: status === 'active' ? contextSummary(session) : null,
    ...(session.retired ? { retired: session.retired } : {}),
    ...(Object.keys(session.domain_scores).length > 0 ? { domain_scores: session.domain_scores } : {}),
    ...(session.fingerprint ? { fingerprint: session.fingerprint } : {}),
    ...(lease ? { lease: { holder: lease.holder, expires_at: lease.expires_at.toISOString() } } : {}),
    ...(warnings.length > 0 ? { warnings } : {}),
  };
}

/** A summary of an unreadable context would hide the corruption; it shows as null and /context says why. */
function contextSummary(session: SessionRecord): ContextSummary | null {
  try {
    return summariseContext(readContext(session));
  } catch {
    return null;
  }
}

/** GET /v1/sessions/{id}/context: the caller has already checked the session is active. */
export function contextBody(session: SessionRecord): Record<string, unknown> {
  const context = readContext(session);
  return {
    session_id: session.id,
    schema_version: summariseContext(context).schema_version,
    session_context: context,
    fingerprint: session.fingerprint,
    ...(Object.keys(session.domain_scores).length > 0 ? { domain_scores: session.domain_scores } : {}),
    ...(session.retired ? { retired: session.retired } : {}),
    usage_count: session.usage_count,
    created_at: session.created_at.toISOString(),
    last_used_at: session.last_used_at?.toISOString() ?? null,
    expires_at: session.expires_at.toISOString(),
    warning: CONTEXT_WARNING,
  };
}
