import { describe, expect, it } from 'vitest';
import { detectChallenge } from '../../worker/challenge/detect.js';
import { CHALLENGE_PAGES, NOT_CHALLENGE_PAGES } from '../support/challenge-pages.js';
import { engineContext, fetchJob, useFetchEngine } from './fetch-engine.js';

const EXPECTED_VENDOR: Record<string, string> = {
  cloudflare: 'cloudflare',
  'cloudflare-body': 'cloudflare',
  akamai: 'akamai',
  datadome: 'datadome',
  perimeterx: 'perimeterx',
  imperva: 'imperva',
  kasada: 'kasada',
  'aws-waf': 'aws-waf',
  f5: 'f5',
  sucuri: 'sucuri',
  hcaptcha: 'hcaptcha',
  recaptcha: 'recaptcha',
};

describe('detectChallenge', () => {
  it.each(Object.entries(CHALLENGE_PAGES))('recognises the %s page', (name, page) => {
    const blocked = detectChallenge({ ...page, url: 'https://example.com/' });
    expect(blocked?.vendor).toBe(EXPECTED_VENDOR[name]);
    expect(blocked?.rule).toBeTruthy();
    expect(blocked?.signal).toBeTruthy();
  });

  it.each(Object.entries(NOT_CHALLENGE_PAGES))('does not flag %s', (_name, page) => {
    expect(detectChallenge({ ...page, url: 'https://example.com/' })).toBeNull();
  });

  it('reads header names case-insensitively', () => {
    expect(detectChallenge({ status: 403, headers: { 'CF-Mitigated': 'challenge' }, body: '', url: 'https://e.com/' })?.vendor).toBe('cloudflare');
  });

  const page = (status: number, body: string) => ({ status, headers: {}, body: `<html><body>${body}</body></html>`, url: 'https://e.com/' });

  it('matches body markers in any case where the rule does, and only in its case where it does not', () => {
    expect(detectChallenge(page(200, 'INCAPSULA INCIDENT ID: 1'))?.rule).toBe('imperva-incident');
    expect(detectChallenge(page(403, '<script>KPSDK.configure()</script>'))?.rule).toBe('kasada-ips');
    expect(detectChallenge(page(403, '<script>kpsdk.configure()</script>'))).toBeNull();
  });

  it('applies a refusal-only body marker only on a refusal status', () => {
    expect(detectChallenge(page(200, '<script>window._cf_chl_opt={}</script>'))).toBeNull();
    expect(detectChallenge(page(503, '<script>window._cf_chl_opt={}</script>'))?.rule).toBe('cloudflare-challenge-page');
  });
});

describe('fetch engine sets blocked', () => {
  const fixture = useFetchEngine();

  it('returns the challenge page with blocked set and the attempt marked', async () => {
    const page = await fixture.engine.fetch(fetchJob({ url: `${fixture.site.origin}/challenge/cloudflare` }), engineContext());
    expect(page.status).toBe(403);
    expect(page.blocked).toEqual({ vendor: 'cloudflare', signal: expect.any(String), rule: 'cloudflare-mitigated-header' });
    expect(page.attempts.at(-1)?.outcome).toBe('challenge');
  });

  it('leaves a bare 403 unblocked', async () => {
    const page = await fixture.engine.fetch(fetchJob({ url: `${fixture.site.origin}/bare-403` }), engineContext());
    expect(page.status).toBe(403);
    expect(page.blocked).toBeNull();
  });
});
