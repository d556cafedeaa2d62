import { mkdtempSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchServiceOptions } from '../batch/batch-client.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startGeneratedSite, urlset, type GeneratedSite } from '../crawl/generated-site.js';
import { CLI_SERVICE_ENV, CLI_TEST_TIMEOUT_MS, fetchWorkerVisible, runCli } from './run-cli.js';

let site: GeneratedSite;
let env: Record<string, string>;
const dir = mkdtempSync('/tmp/trawler-cli-crawl-');

beforeAll(async () => {
  site = await startGeneratedSite({
    sitemaps: { '/sitemap.xml': urlset(['/guide/a', '/about']) },
    pages: { '/': ['/guide/b', '/about'], '/guide/a': [], '/guide/b': [], '/about': [] },
  });
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions(CLI_SERVICE_ENV));
beforeAll(async () => {
  await fetchWorkerVisible(service.url, service.secret);
  env = { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: service.secret };
});


describe('trawler crawl and trawler map', () => {
  it('crawls a site to an NDJSON file with progress, and maps it one URL a line', async () => {
    const out = join(dir, 'crawl.ndjson');
    const run = await runCli(['crawl', `${site.origin}/`, '--limit', '3', '--sitemap', 'skip', '--poll-interval', '100', '--progress-interval', '0', '--max-concurrency-per-host', '2', '-o', out], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/trawler: crawl \S+ started with 1 page/);
    // The crawl's progress line counts the pages discovered: the seed, /guide/b and /about queued, nothing skipped (limit 3 reached exactly).
    expect(run.stderr).toMatch(/^progress 3\/3 \(100%\) discovered 3 /m);
    const lines = readFileSync(out, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { url: string; status: string });
    expect(lines.map((line) => line.url).sort()).toEqual([`${site.origin}/`, `${site.origin}/about`, `${site.origin}/guide/b`]);
    expect(lines.every((line) => line.status === 'succeeded')).toBe(true);

    const map = await runCli(['map', `${site.origin}/`, '--search', 'guide'], env);
    expect(map.code, map.stderr).toBe(0);
    expect(map.stdout.trim().split('\n').sort()).toEqual([`${site.origin}/guide/a`, `${site.origin}/guide/b`]);
  }, CLI_TEST_TIMEOUT_MS);
});
