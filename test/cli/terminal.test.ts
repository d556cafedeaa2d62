import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchClient, batchServiceOptions } from '../batch/batch-client.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { startGatedSite, type GatedSite } from './gated-site.js';
import { CLI_SERVICE_ENV, CLI_TEST_TIMEOUT_MS, fetchWorkerVisible, runCli } from './run-cli.js';

/**
 * The CLI in a real terminal (tmux): what a person sees on the screen, where stdout and stderr share
 * it and stdin is a keyboard. The screen is read with `tmux capture-pane`.
 */
const ENTRY = join(process.cwd(), 'dist/bin/trawler.js');
const SESSION = `trawler-cli-${process.pid}`;
const dir = mkdtempSync(join(tmpdir(), 'trawler-cli-terminal-'));
let site: TargetSite;
let gated: GatedSite;
let api: BatchClient;

const tmux = (...args: string[]) => execFileSync('tmux', args, { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-J', '-S', '-200', '-t', SESSION);

/** Polls the screen until `pattern` shows (bounded; the CLI's own pace is not assumed). */
async function waitForScreen(pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function typeCommand(args: string[]): void {
  const quoted = args.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  tmux('send-keys', '-t', SESSION, `clear; node ${ENTRY} ${quoted}; echo "exit=$?"`, 'Enter');
}

beforeAll(async () => {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: build first (npx tsc -p tsconfig.json)`);
  [site, gated] = await Promise.all([startTargetSite(), startGatedSite()]);
});
// After-hooks run last registered first: the terminal closed and the gate opened, the service stopped, then the sites closed.
afterAll(async () => {
  await Promise.all([site?.close(), gated?.close()]);
});
const service = embeddedForSuite(batchServiceOptions(CLI_SERVICE_ENV));
beforeAll(async () => {
  await fetchWorkerVisible(service.url, service.secret);
  api = new BatchClient(service);
  tmux('new-session', '-d', '-s', SESSION, '-x', '200', '-y', '50', '-c', dir, '-e', `TRAWLER_API_URL=${service.url}`, '-e', `TRAWLER_API_KEY=${service.secret}`, 'bash', '--norc', '--noprofile');
}, 120_000);

afterAll(() => {
  try {
    tmux('kill-session', '-t', SESSION);
  } catch {
    // already gone
  }
  gated?.open();
});

describe('the CLI in a terminal (tmux)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('puts the summary on its own line after a body without a final newline, and says "1 credit"', async () => {
    typeCommand(['scrape', site.url]);
    const text = await waitForScreen(/exit=\d+/);
    expect(text).toContain('exit=0');
    // The target's page ends with </html> and no newline: the summary starts a line of its own.
    expect(text).toMatch(/<\/html>\ntrawler: target 200 via fetch, 1 credit, cache/);
  });

  it('saves screenshots without overwriting an earlier one', async () => {
    const shots = join(dir, 'shots');
    const envelope = JSON.stringify({ screenshots: [{ name: 'screenshot', format: 'png', data: Buffer.from('png bytes').toString('base64') }] });
    const { startFakeGateway } = await import('./fake-gateway.js');
    const fake = await startFakeGateway([{ status: 200, headers: { 'content-type': 'application/json', 'x-credits-charged': '8' }, body: envelope }]);
    try {
      for (let run = 0; run < 2; run += 1) {
        const result = await runCli(['scrape', 'https://example.com/', '--screenshot', '--save-screenshots', shots], { TRAWLER_API_URL: fake.url, TRAWLER_API_KEY: service.secret });
        expect(result.code, result.stderr).toBe(0);
      }
    } finally {
      await fake.close();
    }
    expect(readdirSync(shots).sort()).toEqual(['screenshot-2.png', 'screenshot.png']);
  });

  it('Ctrl-C asks with one key, no Enter: "c" cancels the job at once', async () => {
    const input = join(dir, 'gated.txt');
    writeFileSync(input, Array.from({ length: 6 }, (_, i) => `${gated.url}page?n=${i}`).join('\n'));
    typeCommand(['batch', 'run', input, '--concurrency', '1', '--poll-interval', '100', '-o', join(dir, 'gated.ndjson')]);
    const started = await waitForScreen(/batch job ([0-9A-Z]{26}): 6 items submitted/);
    const jobId = /batch job ([0-9A-Z]{26})/.exec(started)![1];
    tmux('send-keys', '-t', SESSION, 'C-c');
    await waitForScreen(/press c to cancel it, d to detach/);
    tmux('send-keys', '-t', SESSION, 'c'); // no Enter
    await api.waitFor(jobId, (job) => job.cancel_requested_at !== undefined);
    gated.open();
    const text = await waitForScreen(/exit=\d+/);
    expect(text).toContain('exit=130');
    expect((await api.job(jobId)).status).toBe('cancelled');
  });

  it('names the failed items of a batch, counted from 1, with their file lines', async () => {
    const input = join(dir, 'mixed.txt');
    writeFileSync(input, `# two pages\n${site.url}\n\n${site.url}reset\n`);
    const run = await runCli(['batch', 'run', input, '--max-attempts', '1', '--poll-interval', '100', '-o', join(dir, 'mixed.ndjson')], { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: service.secret });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(new RegExp(`failed {4}item 2 \\(${input.replaceAll('/', '\\/')}:4\\) ${site.url}reset: ERR::UPSTREAM::CONNECTION_RESET`));
  });

  it('a refused item is named by its file line, and a 401 hints at the key', async () => {
    const input = join(dir, 'refused.txt');
    writeFileSync(input, `${site.url}\n\n{"url": "${site.url}x", "wait": "soon"}\n`);
    const refused = await runCli(['batch', 'run', input], { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: service.secret });
    expect(refused.stderr).toMatch(new RegExp(`${input.replaceAll('/', '\\/')}:3 \\(item 2\\): `));
    const unauthorized = await runCli(['usage'], { TRAWLER_API_URL: service.url, TRAWLER_API_KEY: `svc_live_${'a'.repeat(52)}` });
    expect(unauthorized.stderr).not.toContain('trawler requests');
    expect(unauthorized.stderr).toContain('hint:       check TRAWLER_API_KEY');
  });
});
