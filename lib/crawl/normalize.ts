/**
 * The one spelling of a page a crawl stores and de-duplicates on (docs/crawl.md "URL normalisation"):
 * scheme and host lower-case (WHATWG URL parsing), default ports dropped, the fragment dropped unless
 * it is a hash route (`#/` or `#!`), query parameters sorted by name (stable for equal names) or
 * dropped with `ignoreQuery`, `index.html`/`index.htm`/`index.php` and a trailing slash on a path
 * other than `/` removed. Null when the URL cannot be parsed or is not http(s).
 */
export function normalizeUrl(raw: string, base?: string, ignoreQuery = false): string | null {
  let url: URL;
  try {
    url = new URL(raw, base);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  url.username = '';
  url.password = '';
  const hashRoute = url.hash.startsWith('#/') || url.hash.startsWith('#!');
  if (!hashRoute) url.hash = '';
  let path = url.pathname.replace(/\/index\.(html?|php)$/i, '/');
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  url.pathname = path;
  if (ignoreQuery) url.search = '';
  else if (url.search !== '') {
    const params = [...url.searchParams.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    url.search = new URLSearchParams(params).toString();
  }
  return url.href;
}
