import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { BrowserEngine } from '../../worker/browser/render-engine.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';
import { context, failureOf, job, pgrep, running } from './browser-engine.js';
import { until } from '../support/poll.js';

let site: JsSite;
let guard: EgressGuard;

beforeAll(async () => {
  site = await startJsSite();
  guard = await EgressGuard.start({ policy: { allowLoopback: true } });
});

afterAll(async () => {
  await guard?.close();
  await site?.close();
});

describe.each(['obscura', 'chromium'] as const)('%s browser killed mid-render', { timeout: 60_000 }, (name) => {
  it('fails the request with a retryable RENDER_FAILED, recovers, and leaves no process behind', async () => {
    const engine = new BrowserEngine({ name, guard, capacity: 1 });
    await engine.start();
    const [browserPid] = pgrep(['-P', String(process.pid), '-f', `trawler-browser=${engine.marker}`]);
    expect(browserPid).toBeGreaterThan(0);
    const group = pgrep(['-g', String(browserPid)]);
    expect(group.length).toBeGreaterThan(1);

    const arrived = site.nextHit('/slow');
    const rendering = failureOf(engine.fetch(job(name, { url: `${site.origin}/slow` }), context()));
    await arrived;
    process.kill(browserPid, 'SIGKILL');
    const failure = await rendering;
    expect(failure).toMatchObject({ code: 'ERR::ENGINE::RENDER_FAILED', retryable: true });

    const page = await engine.fetch(job(name, { url: `${site.origin}/client-rendered` }), context());
    expect(page.text).toContain('Rendered by JS');
    // Every process of the killed browser's group is gone (at most an unreaped zombie, see running()).
    expect(running(pgrep(['-g', String(browserPid)]))).toEqual([]);
    expect(running(group)).toEqual([]);

    await engine.stop();
    expect(pgrep(['-f', `trawler-browser=${engine.marker}`])).toEqual([]);
  });
});

describe('budget exhausted mid-navigation', { timeout: 30_000 }, () => {
  it('answers 504 UPSTREAM::TIMEOUT and the browser keeps serving', async () => {
    const engine = new BrowserEngine({ name: 'obscura', guard, capacity: 1 });
    await engine.start();
    const failure = await failureOf(engine.fetch(job('obscura', { url: `${site.origin}/slow` }, 1_500), context()));
    expect(failure.code).toBe('ERR::UPSTREAM::TIMEOUT');
    const page = await engine.fetch(job('obscura', { url: `${site.origin}/static` }), context());
    expect(page.status).toBe(200);
    await engine.stop();
    expect(pgrep(['-f', `trawler-browser=${engine.marker}`])).toEqual([]);
  });

  it('stops when the worker aborts the job', async () => {
    const engine = new BrowserEngine({ name: 'obscura', guard, capacity: 1 });
    await engine.start();
    const abort = new AbortController();
    const arrived = site.nextHit('/slow');
    const rendering = failureOf(engine.fetch(job('obscura', { url: `${site.origin}/slow` }), context(abort.signal)));
    await arrived;
    abort.abort();
    expect((await rendering).code).toBe('ERR::UPSTREAM::TIMEOUT');
    await engine.stop();
  });
});

describe('recycling', { timeout: 30_000 }, () => {
  it('replaces a browser after recycleAfterPages pages, killing the old one', async () => {
    const engine = new BrowserEngine({ name: 'obscura', guard, capacity: 1, recycleAfterPages: 2 });
    await engine.start();
    // Browser main processes are children of this process; their zygotes repeat the marker.
    const marker = ['-P', String(process.pid), '-f', `trawler-browser=${engine.marker}`];
    const [first] = pgrep(marker);
    expect(first).toBeGreaterThan(0);
    for (let n = 0; n < 2; n += 1) await engine.fetch(job('obscura', { url: `${site.origin}/static` }), context());
    const page = await engine.fetch(job('obscura', { url: `${site.origin}/client-rendered` }), context());
    expect(page.text).toContain('Rendered by JS');
    // The worn-out browser served until its replacement was up; then it is killed and one browser is left.
    await until(() => pgrep(marker), (pids) => pids.length === 1 && pids[0] !== first, 20_000);
    await engine.stop();
    expect(pgrep(marker)).toEqual([]);
    expect(running(pgrep(['-g', String(first)]))).toEqual([]);
  });
});
