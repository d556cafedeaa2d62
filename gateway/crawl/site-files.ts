import { request, type Agent } from 'undici';
import { checkTargetUrl, type EgressPolicy } from '../../lib/egress/policy.js';
import { parseSitemap, MAX_SITEMAP_BYTES } from '../../lib/crawl/sitemap.js';
import { guardedAgent } from '../webhooks/deliverer.js';

const SITE_FILE_TIMEOUT_MS = 10_000;
const MAX_ROBOTS_BYTES = 512 * 1024;
/** Sitemaps read per crawl or map, indexes included: a bound on what one call can make the gateway fetch. */
export const MAX_SITEMAP_FILES = 50;
const MAX_REDIRECTS = 5;
const USER_AGENT = 'Trawler (+https://github.com/trawler; robots.txt token Trawler)';

export interface SiteFetcher {
  /** Body bytes of a 2xx answer; `{ status }` otherwise; null when unreachable or refused by the egress policy. */
  get(url: string, maxBytes: number): Promise<Buffer | { status: number } | null>;
  close(): Promise<void>;
}

/** Fetches robots.txt and sitemaps from the gateway itself, through the egress policy (DNS rebinding included). */
export function siteFetcher(policy: EgressPolicy): SiteFetcher {
  const agent: Agent = guardedAgent(policy, SITE_FILE_TIMEOUT_MS);
  return {
    async get(raw, maxBytes) {
      try {
        let url = checkTargetUrl(raw, policy);
        // Redirects are followed here, each target checked like the first (an IP literal never reaches the guarded lookup).
        for (let hop = 0; ; hop += 1) {
          const response = await request(url, {
            dispatcher: agent,
            headers: { 'user-agent': USER_AGENT },
            headersTimeout: SITE_FILE_TIMEOUT_MS,
            bodyTimeout: SITE_FILE_TIMEOUT_MS,
          });
          const location = response.headers.location;
          if (response.statusCode >= 300 && response.statusCode < 400 && typeof location === 'string' && hop < MAX_REDIRECTS) {
            await response.body.dump();
            url = checkTargetUrl(new URL(location, url).href, policy);
            continue;
          }
          if (response.statusCode < 200 || response.statusCode >= 300) {
            await response.body.dump();
            return { status: response.statusCode };
          }
          return await readAtMost(response.body, maxBytes);
        }
      } catch {
        return null;
      }
    },
    close: () => agent.close(),
  };
}

/** The body, cut at `maxBytes` (a sitemap or robots.txt past its ceiling is read up to it). */
async function readAtMost(body: AsyncIterable<Buffer> & { dump(): Promise<void> }, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= maxBytes) {
      await body.dump();
      break;
    }
  }
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

export interface RobotsFile {
  url: string;
  /** The file's text; null when there is none (4xx) or it could not be read. */
  text: string | null;
  /** 5xx or unreachable: read as "disallow everything" (docs/crawl.md). */
  unreachable: boolean;
}

export async function fetchRobots(fetcher: SiteFetcher, seed: URL): Promise<RobotsFile> {
  const url = new URL('/robots.txt', seed).href;
  const answer = await fetcher.get(url, MAX_ROBOTS_BYTES);
  if (answer === null) return { url, text: null, unreachable: true };
  if (!Buffer.isBuffer(answer)) return { url, text: null, unreachable: answer.status >= 500 };
  return { url, text: answer.toString('utf8'), unreachable: false };
}

/** Page URLs of these sitemaps and the indexes they name, breadth first, each file read once, at most MAX_SITEMAP_FILES. */
export async function sitemapPages(fetcher: SiteFetcher, roots: string[], maxPages: number): Promise<string[]> {
  const pending = [...new Set(roots)];
  const seen = new Set(pending);
  const pages: string[] = [];
  for (let read = 0; pending.length > 0 && read < MAX_SITEMAP_FILES && pages.length < maxPages; read += 1) {
    const answer = await fetcher.get(pending.shift() as string, MAX_SITEMAP_BYTES);
    if (!Buffer.isBuffer(answer)) continue;
    let document;
    try {
      document = parseSitemap(answer);
    } catch {
      continue;
    }
    pages.push(...document.pages.slice(0, maxPages - pages.length));
    for (const child of document.sitemaps) {
      if (!seen.has(child)) {
        seen.add(child);
        pending.push(child);
      }
    }
  }
  return pages;
}
