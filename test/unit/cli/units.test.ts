import { describe, expect, it } from 'vitest';
import { parseBatchInput } from '../../../cli/batch/input.js';
import { lineProgress, progressLine } from '../../../cli/batch/progress.js';
import { formatDuration, RateMeter } from '../../../cli/batch/rate.js';
import { chunkItems, MAX_BODY_BYTES, type BatchJob } from '../../../cli/batch/submit.js';
import { CliUsageError } from '../../../cli/exit-codes.js';
import { formatProblem, problemFrom } from '../../../cli/problem.js';
import { backoff, retryAfterSeconds, retryDelay, type RetryPolicy } from '../../../cli/retry.js';
import { flagName, scrapeParametersFrom } from '../../../cli/scrape/parameter-flags.js';
import { QUERY_ENCODING, ScrapeInputSchema } from '../../../lib/scrape/fields.js';
import { scrapeCommand } from '../../../cli/scrape/command.js';

const policy = (random: number): RetryPolicy => ({ maxRetries: 3, baseDelayMs: 1000, random: () => random });
const retryable = { status: 503, code: 'ERR::ENGINE::UNAVAILABLE', retryable: true };

describe('retry rules (docs/cli.md "Retries")', () => {
  it('backs off about 1 s, 2 s, 4 s with jitter, and stops after 3 retries', () => {
    expect([0, 1, 2].map((n) => retryDelay(retryable, n, null, policy(0.5), 'never'))).toEqual([1000, 2000, 4000]);
    expect(backoff(0, policy(0))).toBe(750);
    expect(backoff(0, policy(0.999999))).toBe(1250);
    expect(retryDelay(retryable, 3, null, policy(0.5), 'never')).toBeNull();
  });

  it('waits what Retry-After (or retry_after_seconds) says', () => {
    expect(retryDelay(retryable, 0, '7', policy(0.5), 'never')).toBe(7000);
    expect(retryDelay({ ...retryable, retry_after_seconds: 3 }, 0, null, policy(0.5), 'never')).toBe(3000);
    expect(retryAfterSeconds('Mon, 23 Nov 2026 10:00:10 GMT', Date.parse('2026-11-23T10:00:00Z'))).toBe(10);
    expect(retryAfterSeconds('soon')).toBeNull();
  });

  it('never retries 402 or a problem not marked retryable', () => {
    expect(retryDelay({ status: 402, code: 'ERR::LIMIT::QUOTA_EXCEEDED', retryable: true }, 0, '1', policy(0.5), 'once')).toBeNull();
    expect(retryDelay({ status: 410, code: 'ERR::SESSION::EXPIRED', retryable: false }, 0, null, policy(0.5), 'once')).toBeNull();
    expect(retryDelay({ status: 500 }, 0, null, policy(0.5), 'once')).toBeNull();
  });

  it('retries a dropped connection once, and never where a duplicate would be created', () => {
    const dropped = { status: 0, title: 'No answer' };
    expect(retryDelay(dropped, 0, null, policy(0.5), 'once')).toBe(1000);
    expect(retryDelay(dropped, 1, null, policy(0.5), 'once')).toBeNull();
    expect(retryDelay(dropped, 0, null, policy(0.5), 'never')).toBeNull();
  });
});

describe('problem bodies', () => {
  it('prints title, code, detail, hint and request id', () => {
    const problem = problemFrom(400, Buffer.from(JSON.stringify({ title: 'Incompatible parameters', status: 400, code: 'ERR::REQUEST::INCOMPATIBLE_FLAGS', retryable: false, detail: 'wait needs js_render', diagnostics: { hint: 'add --js-render' } })), '01ABC');
    expect(formatProblem(problem)).toBe(
      ['error: Incompatible parameters (HTTP 400)', '  code:       ERR::REQUEST::INCOMPATIBLE_FLAGS', '  detail:     wait needs js_render', '  hint:       add --js-render', '  request id: 01ABC  (trawler requests 01ABC)'].join('\n'),
    );
  });

  it('makes a problem of a body that is not one', () => {
    expect(problemFrom(502, Buffer.from('<html>Bad gateway</html>'), null)).toEqual({ status: 502, title: 'HTTP 502', detail: '<html>Bad gateway</html>' });
  });
});

describe('scrape parameter flags', () => {
  it('has a flag for every scrape parameter of the schema but url', () => {
    const fields = Object.keys(QUERY_ENCODING).filter((f) => f !== 'url');
    const params = scrapeParametersFrom({ jsRender: true, wait: '500', blockResources: 'image,font', customHeaders: '{"X-A":"1"}', impersonate: false, allowedStatusCodes: '404,500' }, 'https://example.com/');
    expect(params).toEqual({ url: 'https://example.com/', js_render: true, wait: 500, block_resources: ['image', 'font'], custom_headers: { 'X-A': '1' }, impersonate: false, allowed_status_codes: [404, 500] });
    const longFlags = new Set(scrapeCommand().options.map((option) => option.long));
    for (const field of Object.keys(ScrapeInputSchema.shape).filter((f) => f !== 'url')) {
      expect(longFlags, field).toContain(flagName(field));
      if (QUERY_ENCODING[field as keyof typeof QUERY_ENCODING] === 'boolean') expect(longFlags, field).toContain(`--no-${flagName(field).slice(2)}`);
    }
    expect(fields.length).toBe(Object.keys(ScrapeInputSchema.shape).length - 1);
  });

  it('names the flag in a refusal', () => {
    expect(() => scrapeParametersFrom({ waitForTimeout: 'x' }, 'https://example.com/')).toThrow(/--wait-for-timeout: must be an integer/);
    expect(() => scrapeParametersFrom({ screenshotQuality: '500' }, 'https://example.com/')).toThrow(CliUsageError);
  });
});

describe('batch input and chunks', () => {
  it('reads URLs and JSONL items, skipping blanks and comments', () => {
    expect(parseBatchInput('# c\nhttps://a.example/\n\nhttps://b.example/\n', 'f')).toEqual({ items: [{ url: 'https://a.example/' }, { url: 'https://b.example/' }], plainUrls: true, where: ['f:2', 'f:4'] });
    const mixed = parseBatchInput('https://a.example/\n{"url":"https://b.example/","external_id":"b"}', 'f');
    expect(mixed).toEqual({ items: [{ url: 'https://a.example/' }, { url: 'https://b.example/', external_id: 'b' }], plainUrls: false, where: ['f:1', 'f:2'] });
    expect(() => parseBatchInput('https://a.example/ extra', 'f')).toThrow('f:1: expected one URL or one JSON object per line');
    expect(() => parseBatchInput('\n', 'f')).toThrow('no URLs or items');
  });

  it('splits by item count and by the 1 MiB body limit', () => {
    const items = Array.from({ length: 7 }, (_, i) => ({ url: `https://a.example/${i}` }));
    expect(chunkItems(items, true, { maxItems: 3, firstCallBytes: 0 }).map((c) => c.length)).toEqual([3, 3, 1]);
    const big = Array.from({ length: 5 }, (_, i) => ({ url: `https://a.example/${i}`, custom_headers: { x: 'y'.repeat(300_000) } }));
    const chunks = chunkItems(big, false, { maxItems: 10_000, firstCallBytes: 1000 });
    expect(chunks.map((c) => c.length)).toEqual([3, 2]);
    for (const chunk of chunks) expect(Buffer.byteLength(JSON.stringify({ items: chunk, open: true }))).toBeLessThan(MAX_BODY_BYTES);
  });
});

describe('progress figures', () => {
  it('measures the rate over a window and the time left', () => {
    const meter = new RateMeter(10_000);
    meter.add(0, 0);
    expect(meter.etaSeconds(10)).toBeNull();
    meter.add(2000, 10);
    expect(meter.rate()).toBe(5);
    expect(meter.etaSeconds(30)).toBe(6);
    expect(formatDuration(3725)).toBe('1h02m');
  });

  it('prints a plain line at most once per interval, and the last one on stop', () => {
    let now = 0;
    const out: string[] = [];
    const view = lineProgress({ write: (text: string) => out.push(text) } as unknown as NodeJS.WritableStream, 5000, () => now);
    const job = (completed: number, status = 'running') =>
      ({ id: 'J', status, total_items: 10, progress: { total: 10, completed, succeeded: completed, failed: 0, cancelled: 0, skipped: 0, remaining: 10 - completed, percent_complete: completed * 10, credits_charged: completed, credits_charged_micro: completed * 1_000_000 } }) as BatchJob;
    view.update(job(0));
    now = 1000;
    view.update(job(2));
    now = 6000;
    view.update(job(6));
    now = 7000;
    view.update(job(10, 'completed'));
    view.stop();
    expect(out).toEqual([
      'progress 0/10 (0%) rate 0.0/s eta ? failed 0 credits 0 status running\n',
      'progress 6/10 (60%) rate 1.0/s eta 4s failed 0 credits 6 status running\n',
      'progress 10/10 (100%) rate 1.4/s eta 0s failed 0 credits 10 status completed\n',
    ]);
    expect(progressLine({ done: 1, total: 2, percent: 50, rate: '0.5', eta: '2s', failed: 1, credits: '0', status: 'running' })).toBe('progress 1/2 (50%) rate 0.5/s eta 2s failed 1 credits 0 status running');
    expect(progressLine({ done: 1, total: 2, percent: 50, rate: '0.5', eta: '2s', failed: 1, credits: '0', status: 'running', discovered: 9 })).toBe('progress 1/2 (50%) discovered 9 rate 0.5/s eta 2s failed 1 credits 0 status running');
  });
});
