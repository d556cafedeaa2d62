import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';

export interface GeneratedSite {
  origin: string;
  /** Requests per path (query included), to show no page was fetched twice. */
  hits: Map<string, number>;
  /** Every request in arrival order with the site's own clock (ms), robots.txt and sitemaps included. */
  arrivals: { path: string; at: number }[];
  /** The most page requests this site had in flight at once (robots.txt and sitemaps excluded). */
  peakInFlight(): number;
  /** Answers the pages `heldPaths` kept waiting, and every later one at once. */
  release(): void;
  close(): Promise<void>;
}

export interface SitePlan {
  /** path -> links on that page (absolute or relative, as written in the HTML). */
  pages: Record<string, string[]>;
  robots?: string | { status: number };
  /** path -> sitemap XML (a `.gz` path is served gzipped). */
  sitemaps?: Record<string, string>;
  /** path -> where it answers 301 to. */
  redirects?: Record<string, string>;
  /** Pages answer only after this long (to have requests overlap). */
  pageDelayMs?: number;
  /** Pages that answer only once the test calls `release()` (a state the test controls). */
  heldPaths?: (path: string) => boolean;
}

/** A site on 127.0.0.1 from a plan: `{origin}` in any text becomes the site's origin. */
export async function startGeneratedSite(plan: SitePlan): Promise<GeneratedSite> {
  const hits = new Map<string, number>();
  const arrivals: { path: string; at: number }[] = [];
  let origin = '';
  let inFlight = 0;
  let peak = 0;
  let released = false;
  const waiting: Array<() => void> = [];
  const server: Server = createServer(async (req, res) => {
    const url = req.url ?? '/';
    hits.set(url, (hits.get(url) ?? 0) + 1);
    const path = url.split('?')[0];
    arrivals.push({ path: url, at: Date.now() });
    const fill = (text: string) => text.replaceAll('{origin}', origin);
    if (path === '/robots.txt') {
      if (plan.robots === undefined) return void res.writeHead(404).end();
      if (typeof plan.robots !== 'string') return void res.writeHead(plan.robots.status).end();
      return void res.writeHead(200, { 'content-type': 'text/plain' }).end(fill(plan.robots));
    }
    const redirect = plan.redirects?.[path];
    if (redirect !== undefined) return void res.writeHead(301, { location: redirect }).end();
    const sitemap = plan.sitemaps?.[path];
    if (sitemap !== undefined) {
      const xml = Buffer.from(fill(sitemap));
      return void res.writeHead(200, { 'content-type': 'application/xml' }).end(path.endsWith('.gz') ? gzipSync(xml) : xml);
    }
    const links = plan.pages[path] ?? plan.pages[path.replace(/\/$/, '')];
    if (!released && plan.heldPaths?.(path)) await new Promise<void>((resolve) => waiting.push(resolve));
    if (plan.pageDelayMs !== undefined) {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((resolve) => setTimeout(resolve, plan.pageDelayMs));
      inFlight -= 1;
    }
    if (links === undefined) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>missing</body></html>');
    const anchors = links.map((href) => `<a href="${fill(href)}">link</a>`).join('\n');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<html><head><title>${path}</title></head><body><h1>${path}</h1>${anchors}</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  origin = `http://127.0.0.1:${address.port}`;
  return {
    origin,
    hits,
    arrivals,
    peakInFlight: () => peak,
    release: () => {
      released = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

export function urlset(paths: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<url><loc>{origin}${p}</loc></url>`).join('')}</urlset>`;
}

export function sitemapIndex(paths: string[]): string {
  return `<?xml version="1.0" encoding="UTF-8"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${paths.map((p) => `<sitemap><loc>{origin}${p}</loc></sitemap>`).join('')}</sitemapindex>`;
}
