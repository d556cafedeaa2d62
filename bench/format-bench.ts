/**
 * Markdown and text with main_content_only against html through the API (issue 31): the same local
 * article page (test/fixtures/pages/article.html, 2.4 KB; BENCH_PAGE_KB repeats its article up to
 * that size) scraped as html (answered as fetched), as markdown and as text, in the embedded default
 * (`trawler all` in a process of its own) and in distributed mode (gateway and fetch worker
 * processes). The formats alternate round by round in one service, so a change of load on the
 * shared machine weighs on all of them; every round is printed. Targets: markdown and text add at most
 * 1 ms p50 over html, and keep at least 0.8x its throughput. Markdown and text of the whole page
 * (main_content_only=false) run too: what they would cost with a main-content pick that cost nothing,
 * the best figures any pick could reach. BENCH_MODES, BENCH_ROUNDS (3), BENCH_REQUESTS (sequential,
 * 200), BENCH_SECONDS and BENCH_CONCURRENCY pick the runs;
 * CONTENT_INLINE_MAX_CHARS, when set, is handed to the service (where its crossover was measured).
 * The embedded service also reports its garbage collection per scrape (bench/gc-observed.ts): the pause
 * time and how many scavenges per 1,000 scrapes, which follow what a format allocates (bench/content-allocation.ts).
 * BENCH_BASELINE=<checkout> (built, `npx tsc -p tsconfig.json` there) also starts that checkout's embedded
 * service beside this one's, and each format runs on both, alternated within every round (before and
 * after a change, from one run). Prints figures; not a test.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { startDistributed, startEmbeddedProcess, type ServiceProcesses } from './distributed.js';
import { serviceEntry } from './service-entry.js';
import { fetchTierRequests } from './fetch-tier-requests.js';
import { processesCpuMicros } from './proc-cpu.js';
import { observeGc, type GcObserved } from './gc-observed.js';
import { CONCURRENCY, figures, THROUGHPUT_SECONDS, throughput, type Figures } from './request-figures.js';

const MODES = (process.env.BENCH_MODES ?? 'embedded,distributed').split(',');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SEQUENTIAL = Number(process.env.BENCH_REQUESTS ?? 200);
const FORMATS: Array<[string, Record<string, unknown>]> = [
  ['html', { response_format: 'html' }],
  ['markdown', { response_format: 'markdown', main_content_only: true }],
  ['text', { response_format: 'text', main_content_only: true }],
  // The floor of the two targets: the same conversions with no main-content pick at all (the whole
  // page), what markdown and text would cost if the pick were free.
  ['markdown, page', { response_format: 'markdown', main_content_only: false }],
  ['text, page', { response_format: 'text', main_content_only: false }],
];

/** The fixture article, its article body repeated until the page is about `kilobytes` long. */
export function benchPage(kilobytes: number | null): string {
  const page = readFileSync(new URL('../test/fixtures/pages/article.html', import.meta.url), 'utf8');
  if (kilobytes === null) return page;
  const body = page.slice(page.indexOf('<h2>'), page.indexOf('</article>'));
  const times = Math.max(1, Math.round((kilobytes * 1024 - page.length) / body.length) + 1);
  return page.replace(body, body.repeat(times));
}

async function servePage(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/article.html`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/**
 * Figures of one format, the service's CPU per scrape (all its processes and threads: under load, the
 * steadier measure of cost) and, in the embedded service, its young-generation collections per scrape.
 */
interface Measured extends Figures {
  cpuMs: number;
  gc: { scavengesPer1000: number; pauseMs: number } | null;
}

/** A service under measurement, and its collections where they are counted (the embedded one). */
type Side = [name: string, service: ServiceProcesses, gc: GcObserved | null];

async function measured(service: ServiceProcesses, gc: GcObserved | null, run: () => Promise<void>): Promise<Measured> {
  const before = processesCpuMicros(service.pids);
  const gcBefore = gc?.read();
  const f = await figures(run, SEQUENTIAL);
  const requests = SEQUENTIAL + f.rps * THROUGHPUT_SECONDS;
  const cpuMs = (processesCpuMicros(service.pids) - before) / 1000 / requests;
  if (!gc || !gcBefore) return { ...f, cpuMs, gc: null };
  // The entry writes its totals every 200 ms.
  await new Promise((resolve) => setTimeout(resolve, 250));
  const gcAfter = gc.read();
  return { ...f, cpuMs, gc: { scavengesPer1000: ((gcAfter.young - gcBefore.young) / requests) * 1000, pauseMs: (gcAfter.youngMs + gcAfter.oldMs - gcBefore.youngMs - gcBefore.oldMs) / requests } };
}

function row(name: string, f: Measured, html: Measured | null): string {
  const against = html
    ? `   added p50 ${(f.p50 - html.p50).toFixed(2).padStart(5)} ms (<= 1), ${(f.rps / html.rps).toFixed(2)}x html's throughput (>= 0.8), ${(f.cpuMs - html.cpuMs).toFixed(2)} ms CPU more`
    : '';
  const gc = f.gc ? `  GC ${f.gc.pauseMs.toFixed(2)} ms/scrape (${f.gc.scavengesPer1000.toFixed(1)} scavenges per 1000)` : '';
  return `    ${name.padEnd(16)} p50 ${f.p50.toFixed(2).padStart(6)} ms  p95 ${f.p95.toFixed(2).padStart(6)} ms  ${f.rps.toFixed(0).padStart(5)} req/s  ${f.cpuMs.toFixed(2)} ms CPU/scrape${gc}${against}`;
}

/**
 * Every round: html, markdown and text in turn, each against html of its own service; with a
 * baseline, each format on the baseline service and then on this one, so both see the same load.
 */
async function measure(mode: string, services: Side[], page: string): Promise<void> {
  const sides = services.map(([side, service, gc]) => ({ side, service, gc, runs: FORMATS.map(([name, fields]) => [name, fetchTierRequests(page, service, fields).viaApi] as const) }));
  console.log(`${mode}:`);
  try {
    // Warm-up: every format at concurrency, so each path's code is optimised before it is timed.
    for (const { runs } of sides) for (const [, run] of runs) await throughput(run);
    for (let round = 1; round <= ROUNDS; round += 1) {
      console.log(`  round ${round} of ${ROUNDS}`);
      const html = new Map<string, Measured>();
      for (const [index, [name]] of FORMATS.entries()) {
        for (const { side, service, gc, runs } of sides) {
          const figures = await measured(service, gc, runs[index][1]);
          console.log(row(sides.length > 1 ? `${name} ${side}` : name, figures, html.get(side) ?? null));
          if (name === 'html') html.set(side, figures);
        }
      }
    }
  } finally {
    for (const { service } of sides) await service.stop();
  }
}

async function main(): Promise<void> {
  const kilobytes = process.env.BENCH_PAGE_KB ? Number(process.env.BENCH_PAGE_KB) : null;
  const html = benchPage(kilobytes);
  const site = await servePage(html);
  const settings: Record<string, string> = process.env.CONTENT_INLINE_MAX_CHARS ? { CONTENT_INLINE_MAX_CHARS: process.env.CONTENT_INLINE_MAX_CHARS } : {};
  console.log(`html, markdown and text (main_content_only) of a ${(html.length / 1024).toFixed(1)} KB article through POST /v1/scrape: ${SEQUENTIAL} sequential requests, then ${THROUGHPUT_SECONDS} s at concurrency ${CONCURRENCY}, per format and round${settings.CONTENT_INLINE_MAX_CHARS ? `; CONTENT_INLINE_MAX_CHARS=${settings.CONTENT_INLINE_MAX_CHARS}` : ''}`);
  try {
    if (MODES.includes('embedded')) {
      const baseline = process.env.BENCH_BASELINE;
      const services: Side[] = [];
      const start = async (name: string, entry: string): Promise<Side> => {
        const gc = observeGc(entry);
        return [name, await startEmbeddedProcess({ ...settings, ...gc?.settings }, gc?.entry ?? entry), gc];
      };
      if (baseline) services.push(await start('before', serviceEntry(baseline)));
      services.push(await start(baseline ? 'after' : 'this', serviceEntry()));
      await measure(`embedded (\`trawler all\`, one process${baseline ? `; before: ${baseline}, after: this checkout` : ''})`, services, site.url);
    }
    if (MODES.includes('distributed')) {
      const service = await startDistributed(settings);
      if (service === null) console.log('distributed: skipped, PostgreSQL or NATS not reachable');
      else await measure('distributed (gateway and fetch worker processes, PostgreSQL + NATS)', [['this', service, null]], site.url);
    }
  } finally {
    await site.close();
  }
}

await main();
