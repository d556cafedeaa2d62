import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { SCREENSHOT_LIMITS, takeScreenshot, type ScreenshotRequest } from '../../../../worker/browser/screenshots.js';

// Issue 27 item 6: a screenshot's area is clipped to SCREENSHOT_LIMITS and an encoded image over its
// byte budget is refused. A page stand-in reports the scroll size and the encoded bytes the browser would.
interface Shot {
  fullPage?: boolean;
  clip?: { x: number; y: number; width: number; height: number };
}

function pageOf(scroll: { width: number; height: number }, encodedBytes: number): { page: Page; shots: Shot[] } {
  const shots: Shot[] = [];
  const page = {
    evaluate: async () => scroll,
    screenshot: async (options: Shot) => {
      shots.push(options);
      return Buffer.alloc(encodedBytes);
    },
  } as unknown as Page;
  return { page, shots };
}

const request = (fullPage: boolean): ScreenshotRequest => ({ name: 'screenshot', fullPage, selector: null, format: 'png', quality: 0, timeoutMs: 1_000 });
// Base64 of n bytes is 4 * ceil(n / 3) characters: the largest image the budget takes, in bytes.
const LARGEST_BYTES = (SCREENSHOT_LIMITS.maxBase64Chars / 4) * 3;

describe('screenshot bounds', () => {
  it('clips a full page taller and wider than the limits to its top-left corner, with a warning', async () => {
    const { page, shots } = pageOf({ width: 9_000, height: 2_000_000 }, 10);
    const warnings: string[] = [];
    await takeScreenshot(page, request(true), warnings);
    expect(shots).toMatchObject([{ fullPage: true, clip: { x: 0, y: 0, width: 4_096, height: 16_383 } }]);
    expect(warnings).toEqual(['SCREENSHOT_CLIPPED: the area was 9000x2000000 px; the screenshot shows its top-left 4096x16383 px (at most 4096x16383)']);
  });

  it('leaves a full page within the limits whole, without a warning', async () => {
    const { page, shots } = pageOf({ width: 1_280, height: 16_383 }, 10);
    const warnings: string[] = [];
    await takeScreenshot(page, request(true), warnings);
    expect(shots).toMatchObject([{ clip: { width: 1_280, height: 16_383 } }]);
    expect(warnings).toEqual([]);
  });

  it('takes an image of exactly the byte budget and refuses one byte more, naming the budget', async () => {
    const taken = await takeScreenshot(pageOf({ width: 800, height: 600 }, LARGEST_BYTES).page, request(false));
    expect(taken.data).toHaveLength(SCREENSHOT_LIMITS.maxBase64Chars);
    await expect(takeScreenshot(pageOf({ width: 800, height: 600 }, LARGEST_BYTES + 1).page, request(false))).rejects.toThrow(
      `SCREENSHOT_REFUSED: the image is ${SCREENSHOT_LIMITS.maxBase64Chars + 4} base64 characters, over the ${SCREENSHOT_LIMITS.maxBase64Chars} a screenshot may take`,
    );
  });
});
