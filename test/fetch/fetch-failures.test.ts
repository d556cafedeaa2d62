import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { startTargetSite, startTlsTargetSite, type TargetSite } from '../support/target-site.js';
import { engineContext, fetchJob, rejection } from './fetch-engine.js';

const policy = { allowLoopback: true };
let site: TargetSite;
let tlsSite: TargetSite;
let guard: EgressGuard;
let engine: FetchEngine;

beforeAll(async () => {
  [site, tlsSite] = await Promise.all([startTargetSite(), startTlsTargetSite()]);
  guard = await EgressGuard.start({ policy });
  engine = new FetchEngine({ guard, policy, maxRedirects: 10 });
});
afterAll(async () => {
  await guard.close();
  await Promise.all([site.close(), tlsSite.close()]);
});

describe.each([true, false])('fetch failures, impersonate=%s', (impersonate) => {
  const get = (url: string, extra: Record<string, unknown> = {}, budgetMs = 10_000) =>
    engine.fetch(fetchJob({ url, impersonate, ...extra }, budgetMs), engineContext());

  it('follows up to 10 redirects and reports the final URL', async () => {
    const page = await get(`${site.origin}/redirect/10`);
    expect(page.status).toBe(200);
    expect(page.finalUrl).toBe(`${site.origin}/redirect/0`);
    expect(page.timeline.filter((step) => step.stage === 'redirect')).toHaveLength(10);
  });

  it('follows 10 redirects without a listener warning on the attempt signal', async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error): void => void warnings.push(warning.name);
    process.on('warning', onWarning);
    try {
      const pages = await Promise.all(Array.from({ length: 4 }, () => get(`${site.origin}/redirect/10`)));
      expect(pages.map((page) => page.status)).toEqual([200, 200, 200, 200]);
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('fails the 11th redirect with TOO_MANY_REDIRECTS', async () => {
    const error = await rejection(get(`${site.origin}/redirect/11`));
    expect(error.code).toBe('ERR::UPSTREAM::TOO_MANY_REDIRECTS');
    expect(error.targetStatus).toBe(302);
    expect(error.diagnostics?.engine).toBe('fetch');
    expect(error.diagnostics?.hint).toBeTruthy();
  });

  it('switches POST to GET on 302 and 303, keeps PUT on 307', async () => {
    const echo = encodeURIComponent(`${site.origin}/echo`);
    const after302 = await get(`${site.origin}/redirect-to?url=${echo}&status=302`, { method: 'POST' });
    expect(JSON.parse(after302.text ?? '{}').method).toBe('GET');
    const after303 = await get(`${site.origin}/redirect-to?url=${echo}&status=303`, { method: 'DELETE' });
    expect(JSON.parse(after303.text ?? '{}').method).toBe('GET');
    const after307 = await get(`${site.origin}/redirect-to?url=${echo}&status=307`, { method: 'PUT' });
    expect(JSON.parse(after307.text ?? '{}').method).toBe('PUT');
  });

  it('times out a hanging target within the budget, with diagnostics', async () => {
    const error = await rejection(get(`${site.origin}/hang`, {}, 1_500));
    expect(error.code).toBe('ERR::UPSTREAM::TIMEOUT');
    expect(error.diagnostics?.budget_ms).toBe(1_500);
    expect(error.diagnostics?.attempts?.length).toBeGreaterThanOrEqual(1);
    expect(error.diagnostics?.attempts?.[0]).toMatchObject({ engine: 'fetch', error_code: 'UPSTREAM_TIMEOUT' });
  });

  it('stops when the context signal aborts', async () => {
    const controller = new AbortController();
    const pending = engine.fetch(fetchJob({ url: `${site.origin}/hang`, impersonate }, 60_000), engineContext(controller.signal));
    setImmediate(() => controller.abort());
    expect((await rejection(pending)).code).toBe('ERR::UPSTREAM::TIMEOUT');
  });

  it('retries a reset GET twice, then fails with CONNECTION_RESET', async () => {
    const before = site.hits('/reset');
    const error = await rejection(get(`${site.origin}/reset`));
    expect(error.code).toBe('ERR::UPSTREAM::CONNECTION_RESET');
    expect(site.hits('/reset') - before).toBe(3);
    expect(error.diagnostics?.attempts?.map((a) => a.n)).toEqual([1, 2, 3]);
    expect(error.diagnostics?.failed_at).toBeTruthy();
  });

  it('does not retry a reset POST', async () => {
    const before = site.hits('/reset');
    const error = await rejection(get(`${site.origin}/reset`, { method: 'POST' }));
    expect(error.code).toBe('ERR::UPSTREAM::CONNECTION_RESET');
    expect(site.hits('/reset') - before).toBe(1);
  });

  it('fails an untrusted certificate with TLS_FAILED and does not retry', async () => {
    const error = await rejection(get(`${tlsSite.origin}/`));
    expect(error.code).toBe('ERR::UPSTREAM::TLS_FAILED');
    expect(error.diagnostics?.attempts).toHaveLength(1);
    expect(tlsSite.hits('/')).toBe(0);
  });

  it('fails a refused connection with UPSTREAM::ERROR', async () => {
    const closed = await startTargetSite();
    const origin = closed.origin;
    await closed.close();
    const error = await rejection(get(`${origin}/`));
    expect(error.code).toBe('ERR::UPSTREAM::ERROR');
    expect(error.detail).toMatch(/refused/);
  });
});
