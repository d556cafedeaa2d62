import { z } from 'zod';
import { storableString } from '../../validation/storable.js';
import { SameSiteSchema, type SessionState } from '../../protocol/index.js';

/** docs/api-reference.md "Versioning": the stored session context carries its schema version. */
export const SESSION_CONTEXT_SCHEMA_VERSION = 1;
/** docs/api-reference.md "Limits": a serialised session context is at most 1 MiB. */
export const MAX_SESSION_CONTEXT_BYTES = 1_048_576;

/** A session context cookie (docs/sessions.md); `expires` is epoch seconds, -1 for a cookie without expiry. */
export const SessionCookieSchema = z.strictObject({
  name: storableString().min(1),
  value: storableString(),
  domain: storableString().min(1),
  path: storableString().default('/'),
  expires: z.number().int().default(-1),
  http_only: z.boolean().default(false),
  secure: z.boolean().default(false),
  same_site: SameSiteSchema.default('Lax'),
});
export type SessionCookie = z.infer<typeof SessionCookieSchema>;

const StorageSchema = z.record(storableString(), z.record(storableString(), storableString()));

/** The caller-facing context: what `session_context` holds on create and on `/context`. */
export const SessionContextSchema = z.strictObject({
  cookies: z.array(SessionCookieSchema).default([]),
  local_storage: StorageSchema.default({}),
  session_storage: StorageSchema.default({}),
  indexed_db: z.record(storableString(), z.unknown()).default({}),
});
export type SessionContext = z.infer<typeof SessionContextSchema>;

/** What the `context` column holds. Anything else there is STATE_CORRUPT. */
export const StoredContextSchema = SessionContextSchema.extend({
  schema_version: z.literal(SESSION_CONTEXT_SCHEMA_VERSION),
});
export type StoredContext = z.infer<typeof StoredContextSchema>;

export function emptyContext(): SessionContext {
  return { cookies: [], local_storage: {}, session_storage: {}, indexed_db: {} };
}

export function storedContext(context: SessionContext): StoredContext {
  return { schema_version: SESSION_CONTEXT_SCHEMA_VERSION, ...context };
}

/** Serialised size in bytes, as the 1 MiB limit counts it. */
export function contextBytes(context: SessionContext): number {
  return Buffer.byteLength(JSON.stringify(context));
}

export interface ContextSummary {
  schema_version: number;
  cookies: number;
  origins: number;
  bytes: number;
}

export function summariseContext(context: SessionContext): ContextSummary {
  const origins = new Set([...Object.keys(context.local_storage), ...Object.keys(context.session_storage)]);
  return {
    schema_version: SESSION_CONTEXT_SCHEMA_VERSION,
    cookies: context.cookies.length,
    origins: origins.size,
    bytes: contextBytes(context),
  };
}

/** Workers use the wire cookie shape (lib/protocol/scrape.ts: Playwright's, camelCase, `.domain` for domain cookies). */
export function toWireState(sessionId: string, context: SessionContext): SessionState {
  return {
    session_id: sessionId,
    cookies: context.cookies.map((cookie) => ({
      name: cookie.name,
      value: cookie.value,
      domain: cookie.domain,
      path: cookie.path,
      expires: cookie.expires,
      httpOnly: cookie.http_only,
      secure: cookie.secure,
      sameSite: cookie.same_site,
    })),
    local_storage: context.local_storage,
    session_storage: context.session_storage,
  };
}

/** The state a worker returned (unreadable cookies were dropped where it was decoded), over the stored context (IndexedDB is not carried by workers). */
export function fromWireState(state: SessionState, before: SessionContext): SessionContext {
  const cookies = state.cookies.map((cookie) => ({
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    expires: cookie.expires > 0 ? Math.floor(cookie.expires) : -1,
    http_only: cookie.httpOnly,
    secure: cookie.secure,
    same_site: cookie.sameSite,
  }));
  return { cookies, local_storage: state.local_storage, session_storage: state.session_storage, indexed_db: before.indexed_db };
}
