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

/**
 * Bounds on one screenshot (docs/browser-engines.md, "Screenshots"): the area captured is clipped to
 * these sides, so a page's own scroll size (or a huge element) cannot make the browser encode, and the
 * worker hold, an unbounded image; an encoded image still over `maxBase64Chars` is refused.
 */
// 16,383 px is also the largest side WebP can encode.
export const SCREENSHOT_LIMITS = { maxWidthPx: 4_096, maxHeightPx: 16_383, maxBase64Chars: 16 * 1_048_576 } as const;

interface Area {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** `area` cut to SCREENSHOT_LIMITS, with a warning when it was cut. */
function bounded(area: Area, warnings: string[]): Area {
  const width = Math.min(area.width, SCREENSHOT_LIMITS.maxWidthPx);
  const height = Math.min(area.height, SCREENSHOT_LIMITS.maxHeightPx);
  if (width < area.width || height < area.height) {
    warnings.push(
      `SCREENSHOT_CLIPPED: the area was ${Math.ceil(area.width)}x${Math.ceil(area.height)} px; the screenshot shows its top-left ${Math.ceil(width)}x${Math.ceil(height)} px (at most ${SCREENSHOT_LIMITS.maxWidthPx}x${SCREENSHOT_LIMITS.maxHeightPx})`,
    );
  }
  return { ...area, width, height };
}

function oversized(area: Area): boolean {
  return area.width > SCREENSHOT_LIMITS.maxWidthPx || area.height > SCREENSHOT_LIMITS.maxHeightPx;
}

/** The page's whole scrollable size. */
async function pageArea(page: Page): Promise<Area> {
  const size = await page.evaluate(() => ({ width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight }));
  return { x: 0, y: 0, ...size };
}

/** The element's box in page coordinates, or null when it has none. */
async function elementArea(page: Page, selector: string, timeoutMs: number): Promise<Area | null> {
  const element = page.locator(selector).first();
  await element.scrollIntoViewIfNeeded({ timeout: timeoutMs });
  const box = await element.boundingBox({ timeout: timeoutMs });
  if (box === null) return null;
  const scroll = await page.evaluate(() => ({ x: window.scrollX, y: window.scrollY }));
  return { x: box.x + scroll.x, y: box.y + scroll.y, width: box.width, height: box.height };
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

/**
 * Takes one screenshot as base64, its area within SCREENSHOT_LIMITS (a cut is reported in `warnings`).
 * Throws when the selector never appears, capture fails, or the image is over the byte budget.
 */
export async function takeScreenshot(page: Page, request: ScreenshotRequest, warnings: string[] = []): Promise<Screenshot> {
  const format = normaliseFormat(request.format);
  const quality = lossyQuality(format, request.quality);
  const data = format === 'webp' ? await webpScreenshot(page, request, quality, warnings) : await encodedScreenshot(page, request, format, quality, warnings);
  if (data.length > SCREENSHOT_LIMITS.maxBase64Chars) {
    throw new Error(`SCREENSHOT_REFUSED: the image is ${data.length} base64 characters, over the ${SCREENSHOT_LIMITS.maxBase64Chars} a screenshot may take`);
  }
  return { name: request.name, format, data };
}

async function encodedScreenshot(page: Page, request: ScreenshotRequest, format: 'png' | 'jpeg', quality: number | undefined, warnings: string[]): Promise<string> {
  const options = { type: format, quality, timeout: request.timeoutMs, animations: 'disabled' as const };
  let area: Area | null = null;
  if (request.selector !== null) {
    area = await elementArea(page, request.selector, request.timeoutMs);
    // An element within bounds is shot as itself (Playwright waits for it to be stable).
    if (area === null || !oversized(area)) return (await page.locator(request.selector).first().screenshot(options)).toString('base64');
  } else if (request.fullPage) {
    area = await pageArea(page);
  }
  const clip = area === null ? undefined : bounded(area, warnings);
  // With fullPage, Playwright takes `clip` in page coordinates and trims it to the page.
  const buffer = await page.screenshot({ ...options, fullPage: clip !== undefined, clip });
  return buffer.toString('base64');
}

/** Playwright encodes png and jpeg only; Chromium's own capture does webp. */
async function webpScreenshot(page: Page, request: ScreenshotRequest, quality: number | undefined, warnings: string[]): Promise<string> {
  const session = await page.context().newCDPSession(page);
  try {
    let area: Area | null = null;
    if (request.selector !== null) {
      area = await elementArea(page, request.selector, request.timeoutMs);
      if (area === null) throw new Error('screenshot_selector element has no box');
    } else if (request.fullPage) {
      area = await pageArea(page);
    }
    const clip = area === null ? undefined : { ...bounded(area, warnings), scale: 1 };
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
