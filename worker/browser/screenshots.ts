import type { Page } from 'playwright-core';

export interface ScreenshotRequest {
  name: string;
  fullPage: boolean;
  selector: string | null;
  /** Anything but png/jpeg/jpg/webp silently becomes png. */
  format: string;
  /** 0 = engine default; only lossy formats use it. */
  quality: number;
  timeoutMs: number;
}

export interface Screenshot {
  name: string;
  format: 'png' | 'jpeg' | 'webp';
  data: string;
}

export function normaliseFormat(format: string): Screenshot['format'] {
  const lower = format.toLowerCase();
  if (lower === 'jpg' || lower === 'jpeg') return 'jpeg';
  if (lower === 'webp') return 'webp';
  return 'png';
}

function lossyQuality(format: Screenshot['format'], quality: number): number | undefined {
  if (format === 'png' || quality <= 0) return undefined;
  return Math.min(100, Math.round(quality));
}

/** Takes one screenshot as base64. Throws when the selector never appears or capture fails. */
export async function takeScreenshot(page: Page, request: ScreenshotRequest): Promise<Screenshot> {
  const format = normaliseFormat(request.format);
  const quality = lossyQuality(format, request.quality);
  if (format === 'webp') return { name: request.name, format, data: await webpScreenshot(page, request, quality) };
  const options = { type: format, quality, timeout: request.timeoutMs, animations: 'disabled' as const };
  const buffer =
    request.selector !== null
      ? await page.locator(request.selector).first().screenshot(options)
      : await page.screenshot({ ...options, fullPage: request.fullPage });
  return { name: request.name, format, data: buffer.toString('base64') };
}

/** Playwright encodes png and jpeg only; Chromium's own capture does webp. */
async function webpScreenshot(page: Page, request: ScreenshotRequest, quality: number | undefined): Promise<string> {
  const session = await page.context().newCDPSession(page);
  try {
    let clip: { x: number; y: number; width: number; height: number; scale: number } | undefined;
    if (request.selector !== null) {
      const element = page.locator(request.selector).first();
      await element.scrollIntoViewIfNeeded({ timeout: request.timeoutMs });
      const box = await element.boundingBox({ timeout: request.timeoutMs });
      if (box === null) throw new Error('screenshot_selector element has no box');
      const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
      clip = { x: box.x + scroll.x, y: box.y + scroll.y, width: box.width, height: box.height, scale: 1 };
    } else if (request.fullPage) {
      const size = await page.evaluate(() => ({
        width: document.documentElement.scrollWidth,
        height: document.documentElement.scrollHeight,
      }));
      clip = { x: 0, y: 0, width: size.width, height: size.height, scale: 1 };
    }
    const shot = await session.send('Page.captureScreenshot', {
      format: 'webp',
      quality,
      clip,
      captureBeyondViewport: clip !== undefined,
    });
    return shot.data;
  } finally {
    await session.detach().catch(() => undefined);
  }
}
