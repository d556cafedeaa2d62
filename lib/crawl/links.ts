import * as cheerio from 'cheerio';

/** The `href` of every `<a>` and `<area>` in a page, resolved against its `<base href>` or URL. */
export function pageLinks(html: string, pageUrl: string): string[] {
  const $ = cheerio.load(html);
  let base = pageUrl;
  const declared = $('base[href]').first().attr('href');
  if (declared) {
    try {
      base = new URL(declared, pageUrl).href;
    } catch {
      // An unparsable <base> is ignored, as browsers do.
    }
  }
  const links: string[] = [];
  $('a[href], area[href]').each((_, element) => {
    const href = $(element).attr('href');
    if (!href) return;
    try {
      links.push(new URL(href, base).href);
    } catch {
      // Not a URL: not a link to follow.
    }
  });
  return links;
}
