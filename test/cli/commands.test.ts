import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedForSuite } from '../support/suite-service.js';
import { ARTICLE_HTML, SIMPLE_HTML, startTargetSite, type TargetSite } from '../support/target-site.js';
import { CLI_SERVICE_ENV, CLI_TEST_TIMEOUT_MS, fetchWorkerVisible, runCli } from './run-cli.js';

let site: TargetSite;
let env: Record<string, string>;
const dir = mkdtempSync('/tmp/trawler-cli-');

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch'], env: CLI_SERVICE_ENV });
beforeAll(async () => {
  await fetchWorkerVisible(service.url, service.secret);
  env = { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: service.secret };
});

describe('trawler scrape against the embedded service', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('prints the page on stdout', async () => {
    const run = await runCli(['scrape', site.url], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(SIMPLE_HTML);
  });

  it('writes the body to -o and says where on stderr', async () => {
    const out = join(dir, 'article.md');
    const run = await runCli(['scrape', `${site.url}static/article.html`, '--response-format', 'markdown', '-o', out], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toContain('# The article title');
    expect(run.stderr).toMatch(/target 200 via fetch, 1 credit, .*saved .*article\.md/);
  });

  it('refuses an -o path it could not write before sending anything (exit 2), and takes -o - as stdout', async () => {
    const before = site.hits('/');
    const refused = await runCli(['scrape', site.url, '-o', join(dir, 'no-such-folder', 'x.html')], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('cannot write there (its folder does not exist); nothing was sent');
    expect(site.hits('/')).toBe(before);
    const toStdout = await runCli(['scrape', site.url, '-o', '-'], { ...env }, undefined, dir);
    expect(toStdout.code, toStdout.stderr).toBe(0);
    expect(toStdout.stdout).toBe(SIMPLE_HTML);
    expect(existsSync(join(dir, '-'))).toBe(false);
  });

  it('pretty-prints the JSON envelope, and --json gives one machine-readable line', async () => {
    const pretty = await runCli(['scrape', `${site.url}static/article.html`, '--links'], env);
    expect(pretty.code, pretty.stderr).toBe(0);
    expect(pretty.stdout).toContain('\n  "links": [');
    const envelope = JSON.parse(pretty.stdout) as { links: string[] };
    expect(envelope.links).toContain(`${site.origin}/about`);

    const json = await runCli(['scrape', site.url, '--json', '--no-cache'], env);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stderr).toBe('');
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ http_status: 200, target_status: 200, engine: 'fetch', credits_charged: 1, body: SIMPLE_HTML, attempts: 1 });
  });

  it('takes parameters from --params, flags winning over the file', async () => {
    const params = join(dir, 'params.json');
    writeFileSync(params, JSON.stringify({ response_format: 'text', links: true }));
    const run = await runCli(['scrape', `${site.url}static/article.html`, '--params', params, '--no-links', '--json'], env);
    expect(run.code, run.stderr).toBe(0);
    const out = JSON.parse(run.stdout) as { content_type: string; body: string };
    expect(out.content_type).toBe('text/plain');
    expect(out.body).toContain('The article title');
    expect(out.body).not.toContain('<h1>');
  });

  it('refuses bad flags before sending anything (exit 2)', async () => {
    const before = site.hits('/');
    for (const args of [['--wait', 'soon'], ['--engine', 'netscape'], ['--custom-headers', '{"Host":"x"}'], ['--bogus']]) {
      const run = await runCli(['scrape', site.url, ...args], env);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
    }
    const named = await runCli(['scrape', site.url, '--wait-for-timeout', '-5'], env);
    expect(named.stderr).toContain('--wait-for-timeout');
    expect(site.hits('/')).toBe(before);
  });

  it('prints the service\'s problem for a request it refuses (exit 1)', async () => {
    const run = await runCli(['scrape', 'http://10.0.0.1/'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('code:       ERR::SECURITY::SSRF_BLOCKED');
    expect(run.stderr).toMatch(/request id: [0-9A-Z]{26}/);
  });

  it('exits 4 with a key the service does not know', async () => {
    const run = await runCli(['scrape', site.url], { ...env, TRAWLER_API_KEY: `svc_live_${'a'.repeat(52)}` });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain('ERR::AUTH::INVALID_KEY');
  });
});

describe('trawler requests, workers, usage', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('lists the request log, only the errors with --errors, one record by id', async () => {
    expect((await runCli(['scrape', site.url], env)).code).toBe(0);
    expect((await runCli(['scrape', 'http://10.0.0.1/'], env)).code).toBe(1);
    const all = await runCli(['requests', '--json'], env);
    expect(all.code, all.stderr).toBe(0);
    const page = JSON.parse(all.stdout) as { data: Array<{ id: string; status: string }> };
    expect(page.data.some((e) => e.status === 'success')).toBe(true);

    const errors = await runCli(['requests', '--errors', '--json'], env);
    const failed = (JSON.parse(errors.stdout) as { data: Array<{ id: string; status: string }> }).data;
    expect(failed.length).toBeGreaterThan(0);
    expect(failed.every((e) => e.status !== 'success')).toBe(true);

    const one = await runCli(['requests', page.data[0].id], env);
    expect(one.code, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ id: page.data[0].id });

    const table = await runCli(['requests', '--limit', '5'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^CREATED\s+ID\s+STATUS\s+TARGET\s+ENGINE\s+CREDITS\s+ERROR\s+URL$/);
  });

  it('prints its version, and refuses a request-log --limit outside 1-200 (exit 2)', async () => {
    const version = await runCli(['--version']);
    expect(version.code).toBe(0);
    expect(version.stdout).toBe(`trawler ${JSON.parse(readFileSync('package.json', 'utf8')).version}\n`);
    const zero = await runCli(['requests', '--limit', '0'], env);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toContain('--limit must be from 1 to 200');
  });

  it('shows the workers the gateway sees', async () => {
    const run = await runCli(['workers'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^fetch\s+1\s+\d+\s+\d+$/m);
    const json = JSON.parse((await runCli(['workers', '--json'], env)).stdout) as { workers: Array<{ engine: string }> };
    expect(json.workers.map((w) => w.engine)).toEqual(['fetch']);
  });

  it('shows the allowance period', async () => {
    const run = await runCli(['usage'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^allowance\s+100000 credits$/m);
    const json = JSON.parse((await runCli(['usage', '--json'], env)).stdout) as { spent_micro: number };
    expect(json.spent_micro).toBeGreaterThan(0);
    const summary = await runCli(['usage', '--summary', '--group-by', 'engine', '--json'], env);
    expect(summary.code, summary.stderr).toBe(0);
    expect(JSON.parse(summary.stdout)).toMatchObject({ group_by: ['engine'] });
  });
});
