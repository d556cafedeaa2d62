import { isUtf8 } from 'node:buffer';
import iconv from 'iconv-lite';
import { browserEncodingOf, textEncodingOf } from '../fetch/body.js';

/** Runs of characters outside ASCII: where a multi-byte UTF-8 sequence read as single bytes lands. */
const NON_ASCII_RUN = /[^\x00-\x7f]+/g;
const UTF8_NAME = /^utf-?8$/i;

/**
 * One charset decision for every engine (docs/browser-engines.md "Charset"). A browser reads an HTML
 * page that declares nothing as windows-1252, where the fetch engine (worker/fetch/body.ts) reads
 * UTF-8; the same page would then differ by engine. When the two decisions differ, the fetch engine's is
 * UTF-8 and the browser's a single-byte encoding, the rendered markup is repaired: each run of non-ASCII
 * characters that, encoded back in the browser's encoding, is valid UTF-8 is replaced by that UTF-8
 * text. Text a script of the page wrote (already correct) is left as it is unless it happens to be such
 * a run, and everything else of the rendered DOM is kept.
 */
export function repairCharset(html: string, rawBody: Buffer | null, mediaType: string, contentType: string | undefined): string {
  if (rawBody === null || rawBody.length === 0) return html;
  const shared = textEncodingOf(rawBody, mediaType, contentType);
  const browser = browserEncodingOf(rawBody, contentType);
  if (!UTF8_NAME.test(shared) || UTF8_NAME.test(browser) || !iconv.encodingExists(browser) || /^utf-16/i.test(browser)) return html;
  return html.replace(NON_ASCII_RUN, (run) => {
    const bytes = iconv.encode(run, browser);
    if (!isUtf8(bytes)) return run;
    const text = bytes.toString('utf8');
    // A byte the encoding cannot hold comes back as "?": then this run was not the browser's reading.
    return iconv.decode(bytes, browser) === run ? text : run;
  });
}
