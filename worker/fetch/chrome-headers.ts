/**
 * The navigation headers impit sends for `IMPIT_BROWSER` (chrome151) over HTTP/1.1, names and order
 * as impit writes them, for plain-HTTP targets fetched with undici (docs/fetch-engine.md, "Plain
 * HTTP"). test/fetch/plain-http-impersonation.test.ts checks them against impit's own request.
 */
const CHROME_NAVIGATION_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['sec-ch-ua', '"Not=A?Brand";v="99", "Google Chrome";v="151", "Chromium";v="151"'],
  ['sec-ch-ua-mobile', '?0'],
  ['sec-ch-ua-platform', '"Windows"'],
  ['upgrade-insecure-requests', '1'],
  ['user-agent', 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/151.0.0.0 Safari/537.36'],
  ['accept', 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7'],
  ['sec-fetch-site', 'none'],
  ['sec-fetch-mode', 'navigate'],
  ['sec-fetch-user', '?1'],
  ['sec-fetch-dest', 'document'],
  ['accept-encoding', 'gzip, deflate, br, zstd'],
  ['accept-language', 'en-US,en;q=0.9'],
  ['priority', 'u=0, i'],
];

/** As impit merges them: the caller's headers first (names lower-cased), then Chrome's it did not set. */
export function chromeHeaders(custom: Record<string, string>): string[] {
  const flat: string[] = [];
  const own = new Set<string>();
  for (const [name, value] of Object.entries(custom)) {
    const lower = name.toLowerCase();
    own.add(lower);
    flat.push(lower, value);
  }
  for (const [name, value] of CHROME_NAVIGATION_HEADERS) if (!own.has(name)) flat.push(name, value);
  return flat;
}
