import { Parser } from 'htmlparser2';

/**
 * The `href` of every `<a>` and `<area>` in a page, resolved against its first `<base href>` (wherever
 * it stands) or the page URL. A streaming tokenizer, no document tree: a crawl reads the links of every
 * page it fetches, and building a DOM for that cost several times more (bench/crawl-bench.ts).
 */
export function pageLinks(html: string, pageUrl: string): string[] {
  const hrefs: string[] = [];
  let declared: string | null = null;
  const parser = new Parser({
    onopentag(name, attributes) {
      const href = attributes.href;
      if (!href) return;
      if (name === 'a' || name === 'area') hrefs.push(href);
      else if (name === 'base' && declared === null) declared = href;
    },
  });
  parser.end(html);
  let base = pageUrl;
  if (declared !== null) {
    try {
      base = new URL(declared, pageUrl).href;
    } catch {
      // An unparsable <base> is ignored, as browsers do.
    }
  }
  const links: string[] = [];
  for (const href of hrefs) {
    try {
      links.push(new URL(href, base).href);
    } catch {
      // Not a URL: not a link to follow.
    }
  }
  return links;
}
