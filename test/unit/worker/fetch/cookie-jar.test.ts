import { describe, expect, it } from 'vitest';
import { SessionStateSchema } from '../../../../lib/protocol/index.js';
import { SessionCookieJar, splitSetCookie } from '../../../../worker/fetch/cookie-jar.js';

const EMPTY = { session_id: 'S', cookies: [], local_storage: {}, session_storage: { o: { k: 'v' } } };

describe('SessionCookieJar', () => {
  it('splits joined Set-Cookie headers without breaking Expires dates', () => {
    expect(splitSetCookie('a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/, b=2; Path=/x')).toEqual([
      'a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/',
      'b=2; Path=/x',
    ]);
  });

  it('stores answers, sends them by path and domain, and writes them back in the wire shape', async () => {
    const jar = await SessionCookieJar.fromSession(EMPTY);
    await jar.storeFrom('http://shop.test/login', 'a=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Path=/, b=2; Path=/cart; HttpOnly, c=3; Domain=shop.test');
    expect(await jar.headerFor('http://shop.test/')).toBe('a=1; c=3');
    expect(await jar.headerFor('http://shop.test/cart')).toBe('b=2; a=1; c=3');
    expect(await jar.headerFor('http://other.test/')).toBeNull();
    const state = await jar.stateAfter(EMPTY);
    expect(state.session_storage).toEqual(EMPTY.session_storage);
    const byName = Object.fromEntries(state.cookies.map((c) => [c.name, c]));
    expect(byName.a).toMatchObject({ domain: 'shop.test', path: '/', expires: 2139722880, httpOnly: false });
    expect(byName.b).toMatchObject({ path: '/cart', expires: -1, httpOnly: true });
    expect(byName.c).toMatchObject({ domain: '.shop.test' });
  });

  it('loads session cookies and drops expired ones on the way out', async () => {
    const jar = await SessionCookieJar.fromSession(
      SessionStateSchema.parse({
        ...EMPTY,
        cookies: [
          { name: 'keep', value: 'k', domain: '.shop.test', path: '/', expires: -1 },
          { name: 'host', value: 'h', domain: 'shop.test' },
        ],
      }),
    );
    expect(await jar.headerFor('http://www.shop.test/')).toBe('keep=k');
    await jar.storeFrom('http://shop.test/', 'keep=gone; Domain=shop.test; Expires=Thu, 01 Jan 1970 00:00:00 GMT');
    const state = await jar.stateAfter(EMPTY);
    expect(state.cookies.map((c) => c.name)).toEqual(['host']);
  });

  it('refuses a cookie for a public suffix (Domain=co.uk from evil.co.uk)', async () => {
    const jar = await SessionCookieJar.fromSession(EMPTY);
    await jar.storeFrom('http://evil.co.uk/', 'a=b; Domain=co.uk; Path=/');
    expect(await jar.headerFor('http://victim.co.uk/')).toBeNull();
    expect(await jar.headerFor('http://evil.co.uk/')).toBeNull();
    await jar.storeFrom('http://evil.co.uk/', 'mine=1; Domain=evil.co.uk; Path=/');
    expect(await jar.headerFor('http://www.evil.co.uk/')).toBe('mine=1');
    expect((await jar.stateAfter(EMPTY)).cookies.map((c) => `${c.name}@${c.domain}`)).toEqual(['mine@.evil.co.uk']);
  });
});
