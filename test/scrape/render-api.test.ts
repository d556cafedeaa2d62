import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonPost } from '../support/embedded.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startJsSite, type JsSite } from '../support/js-pages.js';

let site: JsSite;

beforeAll(async () => {
  site = await startJsSite();
});
afterAll(async () => {
  await site?.close();
});
const service = embeddedForSuite({ engines: ['fetch', 'obscura', 'chromium'] });

const scrape = (body: Record<string, unknown>) => fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { cache: false, ...body }));

describe('render engines through the API', () => {
  it('renders JavaScript on obscura with js_render=true and bills 3 credits', async () => {
    const response = await scrape({ url: `${site.origin}/client-rendered`, js_render: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-engine')).toBe('obscura');
    expect(response.headers.get('x-credits-charged')).toBe('3');
    expect(await response.text()).toContain('Rendered by JS');
  });

  it('escalates mode=auto from fetch to obscura on an application shell, billing only obscura', async () => {
    const response = await scrape({ url: `${site.origin}/client-rendered`, mode: 'auto' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-engine')).toBe('obscura');
    expect(response.headers.get('x-warning')).toBe('ESCALATED');
    expect(response.headers.get('x-credits-charged')).toBe('3');
    expect(await response.text()).toContain('Rendered by JS');
  });

  it('stops mode=auto at fetch when the static page is usable', async () => {
    const response = await scrape({ url: `${site.origin}/static`, mode: 'auto' });
    expect(response.headers.get('x-engine')).toBe('fetch');
    expect(response.headers.get('x-warning')).toBeNull();
    expect(response.headers.get('x-credits-charged')).toBe('1');
  });

  it('answers RENDER_DEGRADED when wait_for never appears, and still bills the page', async () => {
    const response = await scrape({ url: `${site.origin}/static`, js_render: true, wait_for: '#never', wait_for_timeout: 500 });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-warning')).toBe('RENDER_DEGRADED');
  });

  it('keeps RENDER_DEGRADED on a cache hit of the degraded page', async () => {
    const params = { url: `${site.origin}/static?degraded`, js_render: true, wait_for: '#never', wait_for_timeout: 500 };
    const first = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, params));
    expect(first.headers.get('cache-state')).toBe('miss');
    const again = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, params));
    expect(again.headers.get('cache-state')).toBe('hit');
    expect(again.headers.get('x-credits-charged')).toBe('0');
    expect(again.headers.get('x-warning')).toBe('RENDER_DEGRADED');
  });

  it('takes a screenshot on chromium into the envelope and bills 8 credits', async () => {
    const response = await scrape({ url: `${site.origin}/static`, engine: 'chromium', screenshot: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-credits-charged')).toBe('8');
    const envelope = (await response.json()) as { status: number; screenshots: Array<{ format: string; data: string }>; request_id: string };
    expect(envelope.status).toBe(200);
    expect(envelope.screenshots[0].format).toBe('png');
    expect(Buffer.from(envelope.screenshots[0].data, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(envelope.request_id).toBe(response.headers.get('x-request-id'));
  });

  it('returns the page at 0 credits when the screenshot is not delivered', async () => {
    const response = await scrape({ url: `${site.origin}/static`, engine: 'chromium', screenshot: true, screenshot_selector: '#absent' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const envelope = (await response.json()) as { screenshots: unknown[]; content: string };
    expect(envelope.screenshots).toEqual([]);
  });

  it('answers response_format=pdf as application/pdf from chromium', async () => {
    const response = await scrape({ url: `${site.origin}/static`, engine: 'chromium', response_format: 'pdf' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await response.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('refuses headless=false off chromium and browser-only flags on fetch, at 0 credits', async () => {
    const headful = await scrape({ url: `${site.origin}/static`, js_render: true, headless: false });
    expect(headful.status).toBe(400);
    expect(((await headful.json()) as { code: string }).code).toBe('ERR::REQUEST::CAPABILITY_UNSUPPORTED');
    const wait = await scrape({ url: `${site.origin}/static`, wait: 100 });
    expect(wait.status).toBe(400);
    expect(wait.headers.get('x-credits-charged')).toBe('0');
    expect(((await wait.json()) as { code: string }).code).toBe('ERR::REQUEST::INCOMPATIBLE_FLAGS');
  });

  it('keeps stealth and camoufox unavailable: 503 ENGINE::UNAVAILABLE', async () => {
    for (const body of [{ stealth: true }, { engine: 'camoufox' }]) {
      const response = await scrape({ url: `${site.origin}/static`, ...body });
      expect(response.status).toBe(503);
      expect(((await response.json()) as { code: string }).code).toBe('ERR::ENGINE::UNAVAILABLE');
    }
  });

  it('blocks a private redirect inside the browser with SSRF_BLOCKED at 0 credits', async () => {
    const response = await scrape({ url: `${site.origin}/redirect-private`, js_render: true });
    expect(response.status).toBe(400);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(site.privateConnections()).toBe(0);
  });

  it('fails a page whose script navigates to a private address with SSRF_BLOCKED at 0 credits, and caches nothing', async () => {
    for (const attempt of [1, 2]) {
      const response = await fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { url: `${site.origin}/script-navigates-private`, js_render: true }));
      expect(response.status, `attempt ${attempt}`).toBe(400);
      expect(response.headers.get('x-credits-charged')).toBe('0');
      expect(response.headers.get('cache-state')).not.toBe('hit');
      expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(site.hits('/script-navigates-private')).toBe(2);
    expect(site.privateConnections()).toBe(0);
  });
});
