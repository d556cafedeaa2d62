/**
 * What the content pipeline allocates per scrape (issue 31): in the service every kilobyte a conversion
 * allocates is paid again by the young-generation collector (a scavenge every ~13 MB, each costing
 * milliseconds while the requests in flight survive it), and unlike a timing on this shared machine the
 * figure does not move with the load. V8's sampling heap profiler, counting the objects already collected
 * too, over (1) the 2.4 KB fixture article, KB per scrape, and (2) every ALLOC_EVERY-th page (default 5)
 * of the three development collections, bytes allocated per character of input; markdown and text with
 * and without main_content_only. BENCH_BASELINE=<checkout> measures that checkout's build beside this
 * one's in the same process, each mode on both sides in turn. Both sides run their compiled `dist/`
 * (`npx tsc -p tsconfig.json`; a build older than its sources is refused). Prints figures; not a test.
 */
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadPages, SETS } from './main-content-pages.js';
import { serviceEntry } from './service-entry.js';

type Render = (page: { finalUrl: string; text: string; mediaType: string }, params: unknown, format: string) => unknown;
type Page = { finalUrl: string; text: string; mediaType: 'text/html' };

const EVERY = Number(process.env.ALLOC_EVERY ?? 5);
const MODES: Array<[string, 'markdown' | 'text', boolean]> = [
  ['markdown, main', 'markdown', true],
  ['text, main', 'text', true],
  ['markdown, page', 'markdown', false],
  ['text, page', 'text', false],
];

async function renderOf(checkout: string): Promise<Render> {
  serviceEntry(checkout); // refuses a missing or stale build
  const module = (await import(pathToFileURL(path.join(checkout, 'dist/worker/content/render.js')).href)) as { renderDocument: Render };
  return module.renderDocument;
}

function paramsFor(mainContentOnly: boolean) {
  return { include_tags: [], exclude_tags: [], main_content_only: mainContentOnly, links: false, autoparse: false, extract: null, extract_preset: null, ai_extract: null };
}

/** Bytes allocated while `work` runs (sampled every 512 bytes, collected objects included). */
async function allocated(session: Session, work: () => void): Promise<number> {
  await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  work();
  const { profile } = await session.post('HeapProfiler.stopSampling');
  let total = 0;
  const visit = (node: { selfSize: number; children: Array<typeof node> }): void => {
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return total;
}

function renderAll(render: Render, pages: Page[], params: unknown, format: string): void {
  for (const page of pages) {
    try {
      render(page, params, format);
    } catch {
      // a page the pipeline refuses allocates what it allocated and nothing more
    }
  }
}

async function main(): Promise<void> {
  const sides: Array<[string, Render]> = [];
  if (process.env.BENCH_BASELINE) sides.push(['before', await renderOf(path.resolve(process.env.BENCH_BASELINE))]);
  sides.push([process.env.BENCH_BASELINE ? 'after' : 'this', await renderOf(process.cwd())]);
  const session = new Session();
  session.connect();

  const fixture: Page = { finalUrl: 'http://127.0.0.1:8080/article.html', text: readFileSync('test/fixtures/pages/article.html', 'utf8'), mediaType: 'text/html' };
  const scrapes = 2000;
  console.log(`allocated per scrape of the ${(fixture.text.length / 1024).toFixed(1)} KB fixture article (${scrapes} scrapes after 300 to warm up)`);
  for (const [name, format, main] of MODES) {
    const params = paramsFor(main);
    const cells: string[] = [];
    for (const [side, render] of sides) {
      for (let i = 0; i < 300; i += 1) render(fixture, params, format);
      const bytes = await allocated(session, () => renderAll(render, Array(scrapes).fill(fixture), params, format));
      cells.push(`${side} ${(bytes / scrapes / 1024).toFixed(1).padStart(6)} KB`);
    }
    console.log(`  ${name.padEnd(16)} ${cells.join('   ')}`);
  }

  console.log(`allocated bytes per character of input, every ${EVERY}th page of the development collections`);
  const collections = SETS.map((set) => ({
    set,
    pages: loadPages(set)
      .filter((_page, index) => index % EVERY === 0)
      .map((page): Page => ({ finalUrl: `http://127.0.0.1/${page.id}.html`, text: page.html, mediaType: 'text/html' })),
  }));
  for (const [name, format, main] of MODES) {
    const params = paramsFor(main);
    const cells: string[] = [];
    for (const { set, pages } of collections) {
      const characters = pages.reduce((sum, page) => sum + page.text.length, 0);
      const perSide: string[] = [];
      for (const [side, render] of sides) {
        renderAll(render, pages.slice(0, 10), params, format);
        perSide.push(`${side} ${((await allocated(session, () => renderAll(render, pages, params, format))) / characters).toFixed(1)}`);
      }
      cells.push(`${set} ${perSide.join(' / ')}`);
    }
    console.log(`  ${name.padEnd(16)} ${cells.join('   ')}`);
  }
  session.disconnect();
}

await main();
