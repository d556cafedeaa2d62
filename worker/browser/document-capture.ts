import type { Page, Response } from 'playwright-core';
import { showsNoTargetDocument } from './main-document.js';
import { repairCharset } from './charset-repair.js';
import type { PageDom } from './page-dom.js';

export interface CapturedDocument {
  finalUrl: string;
  status: number;
  headers: Record<string, string>;
  mediaType: string;
  text: string | null;
  body: Buffer;
}

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
const TEXTUAL = /^(text\/|application\/(json|[\w.+-]*\+json|javascript|xml|[\w.+-]*\+xml))/;

export function mediaTypeOf(headers: Record<string, string>): string {
  return (headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() || 'text/html';
}

/**
 * The page as the caller gets it: the rendered DOM for HTML documents (read over CDP when the
 * browser allows, see PageDom); for anything else
 * (JSON, plain text, images) the bytes the target sent, since Chromium's viewer wrapper is not the
 * target's content. Chromium shows its own error page only for an HTTP error status with an empty body
 * (a failed navigation fails the render before this): the caller gets the target's URL and empty body,
 * not that page (which the response's body would also return).
 */
export async function captureDocument(page: Page, response: Response, dom: PageDom): Promise<CapturedDocument> {
  const headers = await response.allHeaders();
  const mediaType = mediaTypeOf(headers);
  const errorPage = showsNoTargetDocument(page.url());
  const base = { finalUrl: errorPage ? response.url() : page.url(), status: response.status(), headers, mediaType };
  if (errorPage) return { ...base, text: TEXTUAL.test(mediaType) ? '' : null, body: Buffer.alloc(0) };
  if (HTML_TYPES.has(mediaType)) {
    // XHTML is serialised as XML by page.content(); the DOM domain's markup is for HTML documents.
    const rendered = (mediaType === 'text/html' ? await dom.html() : null) ?? (await page.content());
    // The page as the fetch engine would have decoded it, when the browser read its bytes otherwise.
    const html = repairCharset(rendered, await response.body().catch(() => null), mediaType, headers['content-type']);
    return { ...base, text: html, body: Buffer.from(html, 'utf8') };
  }
  const body = await response.body();
  return { ...base, text: TEXTUAL.test(mediaType) ? body.toString('utf8') : null, body };
}

/** A PDF of the rendered page (headless Chromium only), backgrounds printed. */
export async function printPdf(page: Page): Promise<Buffer> {
  return page.pdf({ printBackground: true, preferCSSPageSize: true });
}
