/** The pages of ../shared/content-bench's development collections, decoded as the fetch engine decodes them. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { decodeText } from '../worker/fetch/body.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** ../shared/content-bench beside the checkout (or beside the folder of worktrees a checkout sits in). */
export const COLLECTION =
  process.env.CONTENT_BENCH_DIR ??
  [path.resolve(ROOT, '..', 'shared', 'content-bench'), path.resolve(ROOT, '..', '..', 'shared', 'content-bench')].find((dir) => existsSync(dir)) ??
  path.resolve(ROOT, '..', 'shared', 'content-bench');
/** The development collections (README of the collection): news pages, news/blogs/other sites, all running text of mixed pages. */
export const SETS = ['l3s-gn1', 'dragnet-dev', 'cleaneval-dev'] as const;
export type SetName = (typeof SETS)[number];

export function setDir(set: SetName): string {
  return path.join(COLLECTION, set);
}

export interface Page {
  id: string;
  gzipped: Buffer;
  html: string;
  bytes: number;
}

export function loadPages(set: SetName): Page[] {
  const dir = path.join(setDir(set), 'html');
  return readdirSync(dir)
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => {
      const gzipped = readFileSync(path.join(dir, name));
      const raw = gunzipSync(gzipped);
      return { id: name.replace(/\.html\.gz$/, ''), gzipped, html: decodeText(raw, 'text/html', 'text/html'), bytes: raw.length };
    });
}

export function megabytesOf(pages: Page[]): number {
  return pages.reduce((sum, page) => sum + page.bytes, 0) / 1e6;
}
