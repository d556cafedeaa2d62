import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startTargetSite, type TargetSite } from '../support/target-site.js';
import { startCountingListener, type CountingListener } from '../egress/counting-listener.js';

let site: TargetSite;
let privateListener: CountingListener;

beforeAll(async () => {
  [site, privateListener] = await Promise.all([startTargetSite(), startCountingListener('127.0.0.2')]);
});
afterAll(async () => {
  await site?.close();
  await privateListener?.close();
});
const service = embeddedForSuite({ engines: ['fetch'] });

describe('SSRF policy through the API', () => {
  it('refuses every notation of a non-public target with 400 SSRF_BLOCKED at 0 credits, and nothing reaches it', async () => {
    const port = privateListener.port;
    const targets = [
      `http://127.0.0.2:${port}/`,
      `http://2130706434:${port}/`,
      `http://0x7f000002:${port}/`,
      `http://0177.0.0.2:${port}/`,
      `http://127.2:${port}/`,
      `http://[::ffff:127.0.0.2]:${port}/`,
      `http://[::ffff:7f00:2]:${port}/`,
      `http://[64:ff9b::7f00:2]:${port}/`,
      `http://[::127.0.0.2]:${port}/`,
      `http://[::7f00:2]:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://0.0.0.0:${port}/`,
      `http://[::]:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/',
      'http://192.168.0.1/',
      'http://100.64.0.1/',
      'http://224.0.0.1/',
    ];
    for (const url of targets) {
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url, cache: false }));
      expect(response.status, url).toBe(400);
      expect(response.headers.get('x-credits-charged')).toBe('0');
      expect(((await response.json()) as { code: string }).code, url).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(privateListener.connections()).toBe(0);
  });

  it('refuses a redirect into private space at connect time, at 0 credits', async () => {
    const target = `${site.origin}/redirect-to?url=${encodeURIComponent(`http://127.0.0.2:${privateListener.port}/`)}`;
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: target, cache: false }));
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(privateListener.connections()).toBe(0);
  });

  it('refuses a caller proxy on a loopback or private host', async () => {
    for (const proxy of [`http://127.0.0.2:${privateListener.port}`, 'socks5://10.0.0.1:1080', 'http://localhost:3128']) {
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/`, proxy, cache: false }));
      expect(response.status, proxy).toBe(400);
      expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(privateListener.connections()).toBe(0);
  });
});
