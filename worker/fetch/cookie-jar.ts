import { Cookie, CookieJar, MemoryCookieStore } from 'tough-cookie';
import type { SameSite, SessionState, WireCookie } from '../../lib/protocol/index.js';

const SAME_SITE_WIRE: Record<string, SameSite> = { strict: 'Strict', lax: 'Lax', none: 'None' };

/**
 * A session's cookies for one fetch job: loaded from the job, consulted on every hop (redirects
 * included), updated from every Set-Cookie answer, and written back in the wire shape after the run.
 */
export class SessionCookieJar {
  private readonly store = new MemoryCookieStore();
  private readonly jar = new CookieJar(this.store);

  static async fromSession(session: SessionState): Promise<SessionCookieJar> {
    const jar = new SessionCookieJar();
    for (const cookie of session.cookies) await jar.store.putCookie(toToughCookie(cookie));
    return jar;
  }

  /** The Cookie header value for a request to `url`, or null when no stored cookie applies. */
  async headerFor(url: string): Promise<string | null> {
    const header = await this.jar.getCookieString(url);
    return header === '' ? null : header;
  }

  /** Stores the cookies of a response's Set-Cookie header(s); ones the URL may not set are ignored. */
  async storeFrom(url: string, setCookie: string | undefined): Promise<void> {
    if (setCookie === undefined) return;
    for (const line of splitSetCookie(setCookie)) {
      await this.jar.setCookie(line, url, { ignoreError: true });
    }
  }

  /** The session state after the run: every unexpired cookie in the wire shape; storage carried over. */
  async stateAfter(before: SessionState): Promise<SessionState> {
    const now = Date.now();
    const cookies = (await this.store.getAllCookies()).filter((cookie) => (cookie.expiryTime() ?? Infinity) > now).map(toWireCookie);
    return { ...before, cookies };
  }
}

function toToughCookie(cookie: WireCookie): Cookie {
  const domainCookie = cookie.domain.startsWith('.');
  return new Cookie({
    key: cookie.name,
    value: cookie.value,
    domain: cookie.domain.replace(/^\./, '').toLowerCase(),
    hostOnly: !domainCookie,
    path: cookie.path,
    expires: cookie.expires > 0 ? new Date(cookie.expires * 1000) : 'Infinity',
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite.toLowerCase(),
    creation: new Date(),
  });
}

function toWireCookie(cookie: Cookie): WireCookie {
  const expiry = cookie.expiryTime();
  return {
    name: cookie.key,
    value: cookie.value,
    domain: cookie.hostOnly ? (cookie.domain ?? '') : `.${cookie.domain ?? ''}`,
    path: cookie.path ?? '/',
    expires: expiry === undefined || !Number.isFinite(expiry) ? -1 : Math.floor(expiry / 1000),
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: SAME_SITE_WIRE[(cookie.sameSite ?? 'lax').toLowerCase()] ?? 'Lax',
  };
}

/**
 * The HTTP clients join repeated headers with ", ", which also occurs inside `Expires=Wed, 21 Oct ...`.
 * A comma starts a new cookie only when a `name=` follows it (the rule browsers' fetch polyfills use).
 */
export function splitSetCookie(joined: string): string[] {
  return joined
    .split(/,(?=\s*[^;,=\s]+=)/)
    .map((part) => part.trim())
    .filter((part) => part !== '');
}
