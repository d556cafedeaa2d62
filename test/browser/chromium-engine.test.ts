import { describe, expect, it } from 'vitest';
import { BrowserEngine } from '../../worker/browser/render-engine.js';
import { CHALLENGE_PAGES } from '../support/js-pages.js';
import { context, failureOf, job, useBrowserEngine } from './browser-engine.js';

const fixture = useBrowserEngine('chromium');
const { render } = fixture;

/** Width and height from a PNG's IHDR chunk. */
function pngSize(base64: string): { width: number; height: number } {
  const bytes = Buffer.from(base64, 'base64');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

/** A WebP image's height: lossy (VP8), lossless (VP8L) or extended (VP8X) layout. */
function webpHeight(base64: string): number {
  const bytes = Buffer.from(base64, 'base64');
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return 1 + bytes.readUIntLE(27, 3);
  if (chunk === 'VP8L') return 1 + ((bytes.readUInt32LE(21) >> 14) & 0x3fff);
  return bytes.readUInt16LE(28) & 0x3fff;
}

describe('chromium engine', { timeout: 40_000 }, () => {
  it('renders client-side content', async () => {
    const page = await render({ url: `${fixture.site.origin}/client-rendered` });
    expect(page.text).toContain('Rendered by JS');
  });

  it('takes a viewport screenshot, 800x600 png by default', async () => {
    const page = await render({ url: `${fixture.site.origin}/client-rendered`, screenshot: true });
    expect(page.screenshots).toHaveLength(1);
    const shot = page.screenshots![0];
    expect(shot).toMatchObject({ name: 'screenshot', format: 'png' });
    expect(pngSize(shot.data)).toEqual({ width: 800, height: 600 });
  });

  it('takes full-page and element screenshots', async () => {
    const full = await render({
      url: `${fixture.site.origin}/infinite`,
      screenshot: true,
      screenshot_fullpage: true,
      wait_for: '.item',
    });
    expect(pngSize(full.screenshots![0].data).height).toBeGreaterThan(600);
    const element = await render({ url: `${fixture.site.origin}/client-rendered`, screenshot: true, screenshot_selector: '#title' });
    const size = pngSize(element.screenshots![0].data);
    expect(size.height).toBeLessThan(100);
    expect(size.width).toBeLessThanOrEqual(800);
  });

  it.each([
    ['a full-page png', { screenshot_fullpage: true }],
    ['a full-page webp', { screenshot_fullpage: true, screenshot_format: 'webp' }],
    ['an element taller than the limit', { screenshot_selector: '#tower' }],
  ])('clips %s of a 40,000 px page to 16,383 px, saying so', async (_name, asked) => {
    const page = await render({ url: `${fixture.site.origin}/tall`, screenshot: true, ...asked });
    const shot = page.screenshots![0];
    const height = shot.format === 'webp' ? webpHeight(shot.data) : pngSize(shot.data).height;
    expect(height).toBe(16_383);
    expect(page.warnings).toEqual(expect.arrayContaining([expect.stringMatching(/^SCREENSHOT_CLIPPED: the area was \d+x400\d\d px/)]));
  });

  it.each([
    ['jpeg', 'jpeg', [0xff, 0xd8]],
    ['jpg', 'jpeg', [0xff, 0xd8]],
    ['webp', 'webp', [0x52, 0x49, 0x46, 0x46]],
    ['bmp', 'png', [0x89, 0x50]],
  ])('screenshot_format %s gives %s', async (asked, format, magic) => {
    const page = await render({ url: `${fixture.site.origin}/static`, screenshot: true, screenshot_format: asked, screenshot_quality: 50 });
    const shot = page.screenshots![0];
    expect(shot.format).toBe(format);
    expect([...Buffer.from(shot.data, 'base64').subarray(0, magic.length)]).toEqual(magic);
  });

  it('returns the page without an image when the screenshot selector never appears', async () => {
    const page = await render({ url: `${fixture.site.origin}/static`, screenshot: true, screenshot_selector: '#absent' }, 15_000);
    expect(page.text).toContain('Static page');
    expect(page.screenshots ?? []).toEqual([]);
  });

  it('keeps screenshot order: the flag first, then action steps', async () => {
    const page = await render({
      url: `${fixture.site.origin}/static`,
      screenshot: true,
      actions: [{ type: 'screenshot', name: 'step', format: 'jpeg' }],
    });
    expect(page.screenshots!.map((s) => s.name)).toEqual(['screenshot', 'step']);
  });

  it('prints a PDF for response_format=pdf', async () => {
    const page = await render({ url: `${fixture.site.origin}/client-rendered`, response_format: 'pdf' });
    expect(page.pdf!.subarray(0, 5).toString('latin1')).toBe('%PDF-');
  });

  it('renders headful on a virtual display at 1920x1080', async () => {
    const page = await render({
      url: `${fixture.site.origin}/client-rendered`,
      headless: false,
      actions: [{ type: 'evaluate', script: '[window.innerWidth, window.innerHeight, navigator.userAgent.includes("Headless")]' }],
      screenshot: true,
    });
    expect(page.text).toContain('Rendered by JS');
    expect(page.actionResults).toEqual([[1920, 1080, false]]);
    expect(pngSize(page.screenshots![0].data)).toEqual({ width: 1920, height: 1080 });
  });

  it('keeps the headful page inside the egress policy', async () => {
    const page = await render({ url: `${fixture.site.origin}/ssrf`, headless: false });
    expect(page.text).toContain('still here');
    expect(fixture.site.privateConnections()).toBe(0);
  });

  it('waits for late content, and degrades when it never comes', async () => {
    const late = await render({ url: `${fixture.site.origin}/delayed`, wait_for: '#late' });
    expect(late.text).toContain('Late content');
    const never = await render({ url: `${fixture.site.origin}/static`, wait_for: '#never', wait_for_timeout: 300 });
    expect(never.warnings).toContain('RENDER_DEGRADED');
  });

  it('waits for the page to settle by default: content a request at load brings is in the document', async () => {
    const page = await render({ url: `${fixture.site.origin}/fetch-at-load` });
    expect(page.text).toContain('Arrived after load');
    expect(page.text).not.toContain('Loading…');
  });

  it('decodes a page with no declared charset as the fetch engine does (UTF-8), keeping text a script wrote', async () => {
    const page = await render({ url: `${fixture.site.origin}/undeclared-charset` });
    expect(page.text).toContain('café naïve über — ✓');
    expect(page.text).toContain('script wrote é');
    expect(page.text).not.toContain('Ã');
  });

  it('has the browser itself read that page as UTF-8, so its scripts, screenshots and PDF see the same text', async () => {
    const page = await render({ url: `${fixture.site.origin}/undeclared-charset-seen` });
    // "café" is 4 characters read as UTF-8; windows-1252 would have made it 5 ("cafÃ©").
    expect(page.text).toContain('<p id="seen">UTF-8 4</p>');
    expect(page.text).toContain('café');
  });

  it('runs a form workflow and captures the page\'s fetch/XHR', async () => {
    const form = await render({
      url: `${fixture.site.origin}/form`,
      actions: [
        { type: 'fill', selector: '#name', value: 'Cy' },
        { type: 'click', selector: '#go' },
        { type: 'wait_for', selector: '#result:not(:empty)' },
      ],
    });
    expect(form.text).toContain('Cy||red|false');
    const xhr = await render({ url: `${fixture.site.origin}/xhr`, wait_for: '#out:not(:empty)', network_capture: { status: ['2xx'] } });
    expect((xhr.network as Array<{ url: string }>).map((e) => new URL(e.url).pathname).sort()).toEqual(['/api/data', '/api/xhr']);
  });

  it('scrolls an infinite list to its end', async () => {
    const page = await render({
      url: `${fixture.site.origin}/infinite`,
      actions: [{ type: 'wait_for', selector: '.item' }, { type: 'infinite_scroll', max_scrolls: 20, delay: 2_000, stop_selector: '#end' }],
    });
    expect(page.text).toContain('The end');
  });

  it.each(Object.keys(CHALLENGE_PAGES))('recognises the %s challenge page', async (vendor) => {
    const page = await render({ url: `${fixture.site.origin}/challenge/${vendor}` });
    expect(page.blocked?.vendor).toBe(vendor);
  });

  it('recognises a challenge page when headful', async () => {
    const page = await render({ url: `${fixture.site.origin}/challenge/cloudflare`, headless: false });
    expect(page.blocked?.vendor).toBe('cloudflare');
  });

  it('answers SSRF_BLOCKED when a script of the page navigates it to a private address', async () => {
    const failure = await failureOf(render({ url: `${fixture.site.origin}/script-navigates-private`, wait: 500 }));
    expect(failure.code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(fixture.site.privateConnections()).toBe(0);
  });

  it('returns the target\'s empty body, not Chromium\'s error page, for an error status without a body', async () => {
    const page = await render({ url: `${fixture.site.origin}/empty-403` });
    expect(page.status).toBe(403);
    expect(page.finalUrl).toBe(`${fixture.site.origin}/empty-403`);
    expect(page.text).toBe('');
  });

  it('refuses headless=false on obscura with CAPABILITY_UNSUPPORTED', async () => {
    const obscura = new BrowserEngine({ name: 'obscura', guard: fixture.guard, capacity: 1 });
    const failure = await failureOf(obscura.fetch(job('obscura', { url: `${fixture.site.origin}/static`, headless: false }), context()));
    expect(failure.code).toBe('ERR::REQUEST::CAPABILITY_UNSUPPORTED');
    await obscura.stop();
  });
});
