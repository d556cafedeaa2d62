import type { CDPSession, Page } from 'playwright-core';
import { browserEncodingOf, textEncodingOf } from '../fetch/body.js';

const UTF8_NAME = /^utf-?8$/i;
const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** A declared charset that settles the browser's reading before it sees a byte (UTF-8, UTF-16): nothing to decide. */
const SETTLED_CHARSET = /;\s*charset\s*=\s*"?(utf-?8|utf-?16(le|be)?)"?\s*(;|$)/i;
/** Headers a fulfilled answer must not repeat: the body handed back is whole and already decoded. */
const DROPPED = new Set(['content-encoding', 'content-length', 'transfer-encoding']);

interface HeaderEntry {
  name: string;
  value: string;
}
interface PausedResponse {
  requestId: string;
  resourceType: string;
  responseStatusCode?: number;
  responseHeaders?: HeaderEntry[];
}

/**
 * One charset decision for every engine, in the browser itself (docs/browser-engines.md "Charset"):
 * each HTML document's answer is held at the response stage over CDP (`Fetch`, requestStage Response,
 * after the browser's own network path and egress guard fetched it) and, when the shared decision
 * (`textEncodingOf`) is UTF-8 but the browser would read a single-byte encoding, handed to the page with
 * `charset=utf-8` in its Content-Type. The page's scripts, layout, screenshots and PDF then all see the
 * text the fetch engine reads. Answers already declaring UTF-8 or UTF-16 go on untouched, unread.
 * A browser that refuses the session or the Fetch domain answers null: its capture is repaired afterwards (charset-repair.ts).
 */
export async function declareSharedCharset(page: Page): Promise<CDPSession | null> {
  let session: CDPSession;
  try {
    session = await page.context().newCDPSession(page);
  } catch {
    return null;
  }
  session.on('Fetch.requestPaused', (event: PausedResponse) => void answer(session, event).catch(() => undefined));
  try {
    await session.send('Fetch.enable', { patterns: [{ resourceType: 'Document', requestStage: 'Response' }] });
  } catch {
    await session.detach().catch(() => undefined);
    return null;
  }
  return session;
}

async function answer(session: CDPSession, event: PausedResponse): Promise<void> {
  const requestId = event.requestId;
  const status = event.responseStatusCode;
  const headers = event.responseHeaders ?? [];
  const contentType = headers.find((header) => header.name.toLowerCase() === 'content-type')?.value;
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() || 'text/html';
  // Requests (no status yet), redirects (no body to read) and anything but HTML of an open charset go on as they are.
  if (status === undefined || (status >= 300 && status < 400) || !HTML_TYPES.has(mediaType) || SETTLED_CHARSET.test(contentType ?? '')) {
    await continueAsIs(session, requestId, status);
    return;
  }
  let bytes: Buffer;
  try {
    const read = (await session.send('Fetch.getResponseBody', { requestId })) as { body: string; base64Encoded: boolean };
    bytes = Buffer.from(read.body, read.base64Encoded ? 'base64' : 'utf8');
  } catch {
    await continueAsIs(session, requestId, status);
    return;
  }
  const shared = textEncodingOf(bytes, mediaType, contentType);
  const browser = browserEncodingOf(bytes, contentType);
  const relabel = UTF8_NAME.test(shared) && !UTF8_NAME.test(browser) && !/^utf-16/i.test(browser);
  const kept = headers.filter((header) => !DROPPED.has(header.name.toLowerCase()) && !(relabel && header.name.toLowerCase() === 'content-type'));
  if (relabel) kept.push({ name: 'Content-Type', value: `${mediaType}; charset=utf-8` });
  // The body was read, so the answer is handed over whole, as it came.
  await session.send('Fetch.fulfillRequest', { requestId, responseCode: status, responseHeaders: kept, body: bytes.toString('base64') });
}

async function continueAsIs(session: CDPSession, requestId: string, status: number | undefined): Promise<void> {
  if (status === undefined) await session.send('Fetch.continueRequest', { requestId });
  else await session.send('Fetch.continueResponse', { requestId });
}
