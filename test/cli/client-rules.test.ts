import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { problem, startFakeGateway, type FakeGateway } from './fake-gateway.js';
import { CLI_TEST_TIMEOUT_MS, runCli, startCli } from './run-cli.js';

const OK = { status: 200, headers: { 'x-target-status': '200', 'x-engine': 'fetch', 'x-credits-charged': '1', 'cache-state': 'miss' }, body: '<p>the page</p>' };

let gateway: FakeGateway | null = null;
afterEach(async () => {
  await gateway?.close();
  gateway = null;
});

function scrape(url: string, ...extra: string[]) {
  return runCli(['scrape', 'https://example.com/', '--api-url', url, '--api-key', 'svc_test_key', ...extra]);
}

describe('client retry rules (against a scripted gateway)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('retries a retryable 503 after its Retry-After, then prints the page', async () => {
    gateway = await startFakeGateway([
      { status: 503, headers: { 'retry-after': '2' }, body: problem(503, 'ERR::ENGINE::UNAVAILABLE', true, { retry_after_seconds: 2 }) },
      OK,
    ]);
    const run = await scrape(gateway.url);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe('<p>the page</p>');
    expect(gateway.requests).toHaveLength(2);
    expect(gateway.requests.every((r) => r.method === 'POST' && r.path === '/v1/scrape' && r.authorization === 'Bearer svc_test_key')).toBe(true);
    expect(JSON.parse(gateway.requests[1].body)).toEqual({ url: 'https://example.com/' });
    // 2 s is what the server asked; the back-off without it would wait 0.75-1.25 s before the first retry
    expect(run.stderr).toContain('HTTP 503 ERR::ENGINE::UNAVAILABLE; retry 1 of 3 in 2.0 s');
    expect(gateway.requests[1].at - gateway.requests[0].at).toBeGreaterThanOrEqual(1990);
  });

  it('never retries 402, prints the problem readably and exits 5', async () => {
    gateway = await startFakeGateway([{ status: 402, body: problem(402, 'ERR::LIMIT::QUOTA_EXCEEDED', false, { detail: 'Monthly credits used up; resets 2026-12-01' }) }, OK]);
    const run = await scrape(gateway.url);
    expect(run.code).toBe(5);
    expect(gateway.requests).toHaveLength(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('error: Title of ERR::LIMIT::QUOTA_EXCEEDED (HTTP 402)');
    expect(run.stderr).toContain('code:       ERR::LIMIT::QUOTA_EXCEEDED');
    expect(run.stderr).toContain('detail:     Monthly credits used up; resets 2026-12-01');
    expect(run.stderr).toContain('request id: 01REQUESTIDOFTHEPROBLEM000');
  });

  it('never retries a 402 even if it claimed to be retryable', async () => {
    gateway = await startFakeGateway([{ status: 402, headers: { 'retry-after': '1' }, body: problem(402, 'ERR::LIMIT::QUOTA_EXCEEDED', true) }, OK]);
    const run = await scrape(gateway.url);
    expect(run.code).toBe(5);
    expect(gateway.requests).toHaveLength(1);
  });

  it('does not retry a problem marked retryable: false', async () => {
    gateway = await startFakeGateway([{ status: 400, body: problem(400, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', false) }, OK]);
    const run = await scrape(gateway.url);
    expect(run.code).toBe(1);
    expect(gateway.requests).toHaveLength(1);
  });

  it('backs off without Retry-After and stops after --retries', async () => {
    gateway = await startFakeGateway([{ status: 500, body: problem(500, 'ERR::INTERNAL::ERROR', true) }]);
    const run = await scrape(gateway.url, '--retries', '1');
    expect(run.code).toBe(1);
    expect(gateway.requests).toHaveLength(2);
    expect(run.stderr).toMatch(/HTTP 500 ERR::INTERNAL::ERROR; retry 1 of 1 in \d\.\d s/);
    expect(run.stderr).toContain('attempts:   2');
  });

  it('exits 4 on an authentication problem and says where the key comes from', async () => {
    gateway = await startFakeGateway([{ status: 401, body: problem(401, 'ERR::AUTH::MISSING_KEY', false) }]);
    const run = await runCli(['workers', '--api-url', gateway.url]);
    expect(run.code).toBe(4);
    expect(gateway.requests[0].authorization).toBeUndefined();
    expect(run.stderr).toContain('set TRAWLER_API_KEY or pass --api-key');
  });

  it('--json prints the problem body as one JSON line on stderr and nothing else', async () => {
    gateway = await startFakeGateway([{ status: 503, headers: { 'retry-after': '1' }, body: problem(503, 'ERR::ENGINE::UNAVAILABLE', true) }]);
    const run = await scrape(gateway.url, '--json', '--retries', '0');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(JSON.parse(run.stderr.trim())).toMatchObject({ status: 503, code: 'ERR::ENGINE::UNAVAILABLE', retryable: true });
  });

  it('reads TRAWLER_API_URL and TRAWLER_API_KEY, flags winning', async () => {
    gateway = await startFakeGateway([OK]);
    const fromEnv = await runCli(['scrape', 'https://example.com/'], { TRAWLER_API_URL: gateway.url, TRAWLER_API_KEY: 'svc_test_env' });
    expect(fromEnv.code, fromEnv.stderr).toBe(0);
    const flagWins = await runCli(['scrape', 'https://example.com/', '--api-key', 'svc_test_flag'], { TRAWLER_API_URL: gateway.url, TRAWLER_API_KEY: 'svc_test_env' });
    expect(flagWins.code).toBe(0);
    expect(gateway.requests.map((r) => r.authorization)).toEqual(['Bearer svc_test_env', 'Bearer svc_test_flag']);
  });

  it('retries a dropped connection at most once', async () => {
    const run = await runCli(['workers', '--api-url', 'http://127.0.0.1:9', '--api-key', 'k']);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('no answer; retry 1 of 1');
    expect(run.stderr.match(/retry \d of/g)).toHaveLength(1);
    expect(run.stderr).toContain('No answer from the service');
  });

  it('writes a binary body to a file, never to a terminal', async () => {
    const pdf = Buffer.from('%PDF-1.4 tiny\n%%EOF\n', 'latin1');
    gateway = await startFakeGateway([{ status: 200, headers: { 'content-type': 'application/pdf', 'x-target-status': '200', 'x-engine': 'chromium', 'x-credits-charged': '8' }, body: pdf }]);
    const { mkdtempSync, readFileSync } = await import('node:fs');
    const dir = mkdtempSync('/tmp/trawler-cli-');
    const run = await scrape(gateway.url, '--engine', 'chromium', '--response-format', 'pdf', '-o', `${dir}/page.pdf`);
    expect(run.code, run.stderr).toBe(0);
    expect(readFileSync(`${dir}/page.pdf`)).toEqual(pdf);
    expect(run.stdout).toBe('');
    expect(JSON.parse(gateway.requests[0].body)).toEqual({ url: 'https://example.com/', engine: 'chromium', response_format: 'pdf' });
  });
});

describe('the CLI as a pipe and under interruption (against a scripted gateway)', { timeout: CLI_TEST_TIMEOUT_MS }, () => {
  it('stops quietly, exit 0, when the reader of its output closes the pipe (`| head`)', async () => {
    gateway = await startFakeGateway([{ ...OK, body: `<p>${'x'.repeat(2 * 1024 * 1024)}</p>` }]);
    const cli = startCli(['scrape', 'https://example.com/', '--api-url', gateway.url, '--api-key', 'svc_test_key']);
    // Read the first chunk, then go away as `head -c` does: the CLI's next write meets a closed pipe.
    await new Promise<void>((resolve) => cli.child.stdout!.once('data', () => resolve()));
    cli.child.stdout!.destroy();
    const run = await cli.done;
    expect(run.code).toBe(0);
    expect(run.stderr).not.toMatch(/EPIPE|\n\s+at /);
  });

  it('closes a job whose submission Ctrl-C interrupted, prints its id and exits 130, sending no more items', async () => {
    const job = (open: boolean, total: number) => ({ id: '01JOBINTERRUPTED0000000000', status: 'running', ...(open ? { open: true } : {}), total_items: total, progress: {} });
    const requests: string[] = [];
    let releaseAppend!: () => void;
    const appendHeld = new Promise<void>((resolve) => (releaseAppend = resolve));
    let appendArrived!: () => void;
    const arrived = new Promise<void>((resolve) => (appendArrived = resolve));
    const server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests.push(`${req.method} ${req.url}`);
        const answer = (body: unknown) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.url === '/v1/batch') return answer(job(true, 1));
        if (req.url?.endsWith('/items')) {
          appendArrived();
          return void appendHeld.then(() => answer({ job: job(true, 2), items_added: 1, items_dispatched: 1 }));
        }
        answer(job(false, 2));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const cli = startCli(['batch', 'run', '-', '--chunk-size', '1', '--api-url', url, '--api-key', 'svc_test_key'], {}, 'https://a.example/1\nhttps://a.example/2\nhttps://a.example/3\n');
      await arrived;
      cli.child.kill('SIGINT');
      // Answered only once the CLI has taken the signal, so the next chunk is certain not to be sent.
      await cli.waitForStderr(/interrupted; the call in flight finishes/);
      releaseAppend();
      const run = await cli.done;
      expect(run.code).toBe(130);
      expect(run.stderr).toContain('interrupted: batch job 01JOBINTERRUPTED0000000000 holds 2 of 3 items and was closed');
      expect(requests).toEqual(['POST /v1/batch', 'POST /v1/batch/01JOBINTERRUPTED0000000000/items', 'POST /v1/batch/01JOBINTERRUPTED0000000000/close']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
