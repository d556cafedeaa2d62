/** The pages of ../shared/content-bench's l3s-gn1 set, decoded as the fetch engine decodes them. */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { getEncoding } from 'encoding-sniffer';
import iconv from 'iconv-lite';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const COLLECTION = process.env.CONTENT_BENCH_DIR ?? path.resolve(ROOT, '..', 'shared', 'content-bench');
export const SET = path.join(COLLECTION, 'l3s-gn1');

export interface Page {
  id: string;
  gzipped: Buffer;
  html: string;
  bytes: number;
}

export function loadPages(): Page[] {
  return readdirSync(path.join(SET, 'html'))
    .filter((name) => name.endsWith('.html.gz'))
    .sort()
    .map((name) => {
      const gzipped = readFileSync(path.join(SET, 'html', name));
      const raw = gunzipSync(gzipped);
      return { id: name.replace(/\.html\.gz$/, ''), gzipped, html: iconv.decode(raw, getEncoding(raw) ?? 'utf-8'), bytes: raw.length };
    });
}

export function megabytesOf(pages: Page[]): number {
  return pages.reduce((sum, page) => sum + page.bytes, 0) / 1e6;
}
