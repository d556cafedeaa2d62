import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BatchClient, batchServiceOptions, type Json } from '../batch/batch-client.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { SIMPLE_HTML, startTargetSite, type TargetSite } from '../support/target-site.js';
import { startGatedSite, type GatedSite } from './gated-site.js';
import { CLI_SERVICE_ENV, CLI_TEST_TIMEOUT_MS, fetchWorkerVisible, runCli, startCli } from './run-cli.js';

let site: TargetSite;
let api: BatchClient;
let env: Record<string, string>;
const dir = mkdtempSync('/tmp/trawler-cli-batch-');
const FOLLOW = ['--poll-interval', '100', '--progress-interval', '0'];
const PROGRESS_LINE = /^progress (\d+)\/(\d+) \((\d+)%\) rate \d+\.\d\/s eta \S+ failed (\d+) credits (\d+) status (\w+)$/;

beforeAll(async () => {
  site = await startTargetSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite(batchServiceOptions(CLI_SERVICE_ENV));
beforeAll(async () => {
  await fetchWorkerVisible(service.url, service.secret);
  api = new BatchClient(service);
  env = { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: service.secret };
});


function resultLines(path: string): Json[] {
  return readFileSync(path, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Json);
}

/** Jobs the key's project holds (at most the first page of 200, more than the suite makes). */
async function jobCount(): Promise<number> {
  return ((await (await api.get('/v1/batch?limit=200')).json()) as { batches: unknown[] }).batches.length;
}

function progressLines(stderr: string): RegExpExecArray[] {
  return stderr.split('\n').map((line) => PROGRESS_LINE.exec(line)).filter((m): m is RegExpExecArray => m !== null);
}

describe('trawler batch run', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('submits in chunks, shows progress lines, and writes every result with its body', async () => {
    const urls = Array.from({ length: 12 }, (_, i) => (i % 3 === 0 ? `${site.url}?n=${i}` : `${site.url}json?n=${i}`));
    const input = join(dir, 'urls.txt');
    writeFileSync(input, `# twelve pages\n${urls.join('\n')}\n\n`);
    const out = join(dir, 'results.ndjson');
    const run = await runCli(['batch', 'run', input, '--chunk-size', '5', '--concurrency', '4', '-o', out, ...FOLLOW], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/batch job [0-9A-Z]{26}: 12 items submitted in 4 call\(s\)/);

    const progress = progressLines(run.stderr);
    expect(progress.length).toBeGreaterThan(0);
    for (const line of progress) expect(Number(line[2])).toBe(12);
    const last = progress.at(-1)!;
    expect([last[1], last[3], last[4], last[5], last[6]]).toEqual(['12', '100', '0', '12', 'completed']);
    expect(run.stderr).toMatch(/: completed\n\s+items\s+12\/12 done \(100%\): 12 succeeded, 0 failed/);

    const lines = resultLines(out);
    expect(lines.map((l) => l.seq)).toEqual(Array.from({ length: 12 }, (_, i) => i));
    expect(lines.map((l) => l.url)).toEqual(urls);
    for (const line of lines) {
      expect(line.status).toBe('succeeded');
      expect((line.result as Json).content).toBe(String(line.url).includes('json') ? JSON.stringify({ name: 'trawler', items: [1, 2, 3], note: 'caf\u00e9' }) : SIMPLE_HTML);
    }
    const jobId = /batch job ([0-9A-Z]{26})/.exec(run.stderr)![1];
    const job = await api.job(jobId);
    expect(job).toMatchObject({ status: 'completed', total_items: 12 });
    expect(job.open).toBeUndefined();
  });

  it('reads JSONL items from stdin, exits 3 when an item failed, and --json prints the job', async () => {
    const items = [
      { url: `${site.url}`, external_id: 'home' },
      { url: `${site.url}reset`, external_id: 'broken' },
    ];
    const out = join(dir, 'items.ndjson');
    const run = await runCli(['batch', 'run', '-', '--max-attempts', '1', '--json', '-o', out, ...FOLLOW], env, items.map((i) => JSON.stringify(i)).join('\n'));
    expect(run.code, run.stderr).toBe(3);
    expect(run.stderr).toBe('');
    const job = JSON.parse(run.stdout) as Json & { progress: Json };
    expect(job.status).toBe('completed');
    expect(job.progress).toMatchObject({ succeeded: 1, failed: 1 });
    const lines = resultLines(out);
    expect(lines.map((l) => [l.external_id, l.status])).toEqual([['home', 'succeeded'], ['broken', 'failed']]);
    expect((lines[1].error as Json).code).toMatch(/^ERR::UPSTREAM::/);

    const status = await runCli(['batch', 'status', String(job.id)], env);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('1 succeeded, 1 failed');

    const failed = await runCli(['batch', 'results', String(job.id), '--status', 'failed'], env);
    expect(failed.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Json).external_id)).toEqual(['broken']);

    const retried = await runCli(['batch', 'retry', String(job.id), '--json'], env);
    expect(retried.code, retried.stderr).toBe(0);
    expect(JSON.parse(retried.stdout)).toMatchObject({ items_reset: 1 });
    await api.waitTerminal(String(job.id));
  });

  it('refuses an unreadable input line before submitting anything', async () => {
    const input = join(dir, 'bad.txt');
    writeFileSync(input, `${site.url}\n{"external_id":"no url"}\n`);
    const run = await runCli(['batch', 'run', input], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad.txt:2: an item needs a "url" string');
  });

  it('checks every line\'s URL before submitting anything, naming the line, so a large input is never half sent', async () => {
    const input = join(dir, 'bad-url.txt');
    writeFileSync(input, [1, 2, 3, 4].map((i) => `${site.url}?u=${i}`).concat(['htp:/bad', `${site.url}?u=6`]).join('\n'));
    const before = (await jobCount());
    const run = await runCli(['batch', 'run', input, '--chunk-size', '2'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('bad-url.txt:5: "htp:/bad" is not an http or https URL with a host');
    expect((await jobCount())).toBe(before);
  });

  it('refuses --status with --follow, and an -o it could not write, before anything is sent (exit 2)', async () => {
    const followed = await runCli(['batch', 'results', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--follow', '--status', 'failed'], env);
    expect(followed.code).toBe(2);
    expect(followed.stderr).toContain('--status cannot be used with --follow');
    const before = (await jobCount());
    const unwritable = await runCli(['batch', 'run', '-', '-o', join(dir, 'missing', 'out.ndjson')], env, `${site.url}?w=1\n`);
    expect(unwritable.code).toBe(2);
    expect(unwritable.stderr).toContain('cannot write there');
    expect((await jobCount())).toBe(before);
  });
});

describe('Ctrl-C while a batch job is followed (not a terminal)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  let gated: GatedSite;
  beforeEach(async () => {
    gated = await startGatedSite();
  });
  afterEach(async () => {
    gated.open();
    await gated.close();
  });

  /** Six items whose pages hold until the gate opens: the job is running when the signal arrives. */
  async function started(args: string[]) {
    const urls = Array.from({ length: 6 }, (_, i) => `${gated.url}page?n=${i}`).join('\n');
    const cli = startCli(['batch', 'run', '-', '--concurrency', '1', ...FOLLOW, ...args], env, urls);
    await cli.waitForStderr(/^progress /m);
    const jobId = /batch job ([0-9A-Z]{26})/.exec(cli.stderr())![1];
    return { cli, jobId };
  }

  it('the first Ctrl-C warns, the second cancels the job and exits 130', async () => {
    const { cli, jobId } = await started(['-o', join(dir, 'twice.ndjson')]);
    cli.child.kill('SIGINT');
    await cli.waitForStderr(/keeps running\. Ctrl-C again cancels it/);
    expect((await api.job(jobId)).cancel_requested_at).toBeUndefined();
    cli.child.kill('SIGINT');
    await cli.waitForStderr(new RegExp(`cancelling batch job ${jobId}`));
    await api.waitFor(jobId, (job) => job.cancel_requested_at !== undefined);
    gated.open();
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(130);
    expect((await api.job(jobId)).status).toBe('cancelled');
    const lines = resultLines(join(dir, 'twice.ndjson'));
    expect(lines).toHaveLength(6);
    expect(lines.filter((l) => l.status === 'cancelled').length).toBeGreaterThanOrEqual(5);
  });

  it('--cancel-on-interrupt cancels on the first Ctrl-C', async () => {
    const { cli, jobId } = await started(['--cancel-on-interrupt', '-o', join(dir, 'once.ndjson')]);
    cli.child.kill('SIGINT');
    await api.waitFor(jobId, (job) => job.cancel_requested_at !== undefined);
    gated.open();
    const run = await cli.done;
    expect(run.code, run.stderr).toBe(130);
    expect((await api.job(jobId)).status).toBe('cancelled');
  });

  it('SIGTERM leaves the job running; results --follow picks it up to the end', async () => {
    const { cli, jobId } = await started(['-o', join(dir, 'detached.ndjson')]);
    cli.child.kill('SIGTERM');
    const run = await cli.done;
    expect(run.code).toBe(130);
    expect(run.stderr).toContain('the job keeps running');
    const job = await api.job(jobId);
    expect(['queued', 'running']).toContain(job.status);
    expect(job.cancel_requested_at).toBeUndefined();

    gated.open();
    const out = join(dir, 'followed.ndjson');
    const followed = await runCli(['batch', 'results', jobId, '--follow', '-o', out, ...FOLLOW], env);
    expect(followed.code, followed.stderr).toBe(0);
    expect(resultLines(out).map((l) => [l.seq, l.status, (l.result as Json).content])).toEqual(Array.from({ length: 6 }, (_, i) => [i, 'succeeded', '<p>gated page</p>']));
  });
});
