/**
 * HTML -> markdown throughput on one core: the Trawler content pipeline against turndown alone on
 * the same pages, then the worst case of each hostile page. Run: npx tsx bench/content-bench.ts
 */
import { readdirSync, readFileSync } from 'node:fs';
import TurndownService from 'turndown';
import { processContent } from '../worker/content/pipeline.js';
import { htmlInput } from '../test/content/content-input.js';
import { deeplyNestedPage, hugePage, widePage } from '../test/content/hostile-pages.js';

const FIXTURES = new URL('../test/fixtures/pages/', import.meta.url);
const ROUNDS_MS = 3_000;

function corpus(): string[] {
  const pages = readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.html'))
    .map((name) => readFileSync(new URL(name, FIXTURES), 'utf8'));
  // A long-form page of realistic size (~250 KB) beside the small fixtures.
  const article = pages[0];
  const body = article.slice(article.indexOf('<article>'), article.indexOf('</article>'));
  pages.push(article.replace(body, body.repeat(200)));
  return pages;
}

function measure(label: string, pages: string[], convert: (html: string) => string): void {
  const bytes = pages.reduce((sum, page) => sum + Buffer.byteLength(page), 0);
  for (const page of pages) convert(page);
  let done = 0;
  let converted = 0;
  const started = performance.now();
  while (performance.now() - started < ROUNDS_MS) {
    for (const page of pages) convert(page);
    done += pages.length;
    converted += bytes;
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label.padEnd(28)} ${(done / seconds).toFixed(1).padStart(8)} pages/s ${(converted / seconds / 1e6).toFixed(2).padStart(7)} MB/s`);
}

function worstCase(label: string, html: string, extra: Parameters<typeof htmlInput>[2] = {}): void {
  let worst = 0;
  for (let i = 0; i < 3; i += 1) {
    const started = performance.now();
    processContent(htmlInput(html, 'https://bench.example.com/', { response_format: 'markdown', ...extra }));
    worst = Math.max(worst, performance.now() - started);
  }
  console.log(`${label.padEnd(44)} worst ${worst.toFixed(0).padStart(6)} ms`);
}

const pages = corpus();
const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });
console.log(`corpus: ${pages.length} pages, ${(pages.reduce((s, p) => s + p.length, 0) / 1e6).toFixed(2)} MB of HTML; one core, ${ROUNDS_MS / 1000} s each`);
measure('turndown alone', pages, (html) => turndown.turndown(html));
measure('trawler markdown (main only)', pages, (html) => processContent(htmlInput(html, 'https://bench.example.com/', { response_format: 'markdown' })).body);
measure('trawler markdown (whole)', pages, (html) =>
  processContent(htmlInput(html, 'https://bench.example.com/', { response_format: 'markdown', main_content_only: false })).body,
);
measure('trawler envelope+autoparse', pages, (html) =>
  processContent(htmlInput(html, 'https://bench.example.com/', { response_format: 'markdown', autoparse: true, links: true })).body,
);
console.log('hostile pages:');
worstCase('50,000-deep nesting', deeplyNestedPage());
worstCase('20 MB of markup (cut at the size cap)', hugePage(20));
worstCase('5,000 nodes with :has() list extraction', widePage(), { extract: { s: { selector: 'div.a:has(span.b) > span', type: 'list' } } });
