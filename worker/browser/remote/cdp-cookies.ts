import { WireCookieSchema, type WireCookie } from '../../../lib/protocol/index.js';

/** A session's cookies as CDP's `Storage.setCookies` takes them (a cookie without expiry has none). */
export function toCdpCookies(cookies: WireCookie[]): Array<Record<string, unknown>> {
  return cookies.map(({ expires, ...cookie }) => (expires > 0 ? { ...cookie, expires } : cookie));
}

/** CDP's `Storage.getCookies` answer in the session wire shape; a cookie that does not fit is dropped. */
export function toWireCookies(cookies: unknown[]): WireCookie[] {
  return cookies.flatMap((raw) => {
    const cookie = raw as Record<string, unknown>;
    const parsed = WireCookieSchema.safeParse({
      name: cookie.name,
      value: cookie.value,
      domain: cookie.domain,
      path: cookie.path,
      expires: cookie.session === true ? -1 : cookie.expires,
      httpOnly: cookie.httpOnly,
      secure: cookie.secure,
      sameSite: cookie.sameSite ?? 'Lax',
    });
    return parsed.success ? [parsed.data] : [];
  });
}
