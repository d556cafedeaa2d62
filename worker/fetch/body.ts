import { isAscii, isUtf8 } from 'node:buffer';
import zlib from 'node:zlib';
import { Decompress as ZstdDecompress } from 'fzstd';
import iconv from 'iconv-lite';
import { getEncoding } from 'encoding-sniffer';
import { ServiceError } from '../../lib/errors/index.js';

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export function tooLarge(maxBytes: number, status: number | null): ServiceError {
  const mib = (maxBytes / (1024 * 1024)).toFixed(maxBytes % (1024 * 1024) === 0 ? 0 : 1);
  return new ServiceError('ERR::UPSTREAM::ERROR', `The response body exceeds the ${mib} MiB size ceiling`, {
    targetStatus: status,
  });
}

function decodeOne(body: Buffer, coding: string, maxBytes: number, status: number): Buffer {
  const options = { maxOutputLength: maxBytes + 1 };
  try {
    switch (coding) {
      case 'gzip':
      case 'x-gzip':
        return zlib.gunzipSync(body, { ...options, finishFlush: zlib.constants.Z_SYNC_FLUSH });
      case 'deflate':
        // Servers send both zlib-wrapped and raw deflate under this name; a zlib header starts 0x?8.
        return (body[0] & 0x0f) === 8 ? zlib.inflateSync(body, options) : zlib.inflateRawSync(body, options);
      case 'br':
        return zlib.brotliDecompressSync(body, options);
      case 'zstd':
        return zstdDecompress(body, maxBytes, status);
      default:
        return body;
    }
  } catch (error) {
    if (error instanceof ServiceError) throw error;
    if (error instanceof RangeError) throw tooLarge(maxBytes, status);
    throw new ServiceError('ERR::UPSTREAM::ERROR', `The ${coding} response body could not be decoded`, { targetStatus: status, cause: error });
  }
}

function zstdDecompress(body: Buffer, maxBytes: number, status: number): Buffer {
  const chunks: Uint8Array[] = [];
  let total = 0;
  const stream = new ZstdDecompress((chunk) => {
    total += chunk.length;
    if (total > maxBytes) throw tooLarge(maxBytes, status);
    chunks.push(chunk);
  });
  stream.push(body, true);
  return Buffer.concat(chunks);
}

/** Undoes Content-Encoding (gzip, deflate, br, zstd, possibly stacked), bounded by `maxBytes` of output. */
export function decodeContentEncoding(body: Buffer, header: string | undefined, maxBytes: number, status: number): Buffer {
  const codings = (header ?? '').split(',').map((c) => c.trim().toLowerCase()).filter((c) => c !== '' && c !== 'identity');
  let decoded = body;
  for (const coding of codings.reverse()) decoded = decodeOne(decoded, coding, maxBytes, status);
  if (decoded.length > maxBytes) throw tooLarge(maxBytes, status);
  return decoded;
}

/** The media type without parameters, sniffed from the bytes when the header is missing. */
export function mediaTypeOf(contentType: string | undefined, body: Buffer): string {
  const declared = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (declared !== '') return declared;
  if (body.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  const head = body.subarray(0, 512).toString('latin1').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'text/html';
  if (head.startsWith('<?xml')) return 'application/xml';
  if (head.startsWith('{') || head.startsWith('[')) return 'application/json';
  return 'application/octet-stream';
}

export function isTextual(mediaType: string): boolean {
  return (
    mediaType.startsWith('text/') ||
    /[/+](xml|json|html)$/.test(mediaType) ||
    /javascript|ecmascript|x-www-form-urlencoded/.test(mediaType)
  );
}

function charsetParameter(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match?.[1];
}

function bomEncoding(body: Buffer): string | null {
  if (body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) return 'utf-8';
  if (body[0] === 0xff && body[1] === 0xfe) return 'utf-16le';
  if (body[0] === 0xfe && body[1] === 0xff) return 'utf-16be';
  return null;
}

/** Encodings with one byte per character, which valid multi-byte UTF-8 text is practically never written in. */
const SINGLE_BYTE_ENCODING = /^(windows-125\d|iso-8859-\d+|latin-?\d|cp125\d|koi8-[ru]|macintosh|x-mac-cyrillic|ibm866|us-ascii)$/i;

/**
 * Decodes a textual body. HTML follows the WHATWG sniffing order (BOM, Content-Type charset,
 * `<meta charset>` / http-equiv prescan, then UTF-8); other text uses BOM, charset, then UTF-8.
 * A body declared in a single-byte encoding whose non-ASCII bytes are all valid UTF-8 is read as
 * UTF-8 (docs/fetch-engine.md, "Charset").
 */
export function decodeText(body: Buffer, mediaType: string, contentType: string | undefined): string {
  const encoding = textEncodingOf(body, mediaType, contentType);
  // Valid UTF-8 without a BOM decodes to the same string either way; iconv's stream decoder costs more per body.
  if (bomEncoding(body) === null && UTF8_NAME.test(encoding) && isUtf8(body)) return body.toString('utf8');
  return iconv.decode(body, encoding);
}

/**
 * The one charset decision of every engine (docs/fetch-engine.md "Charset"): the fetch engine decodes
 * with it, and the render engines repair a page the browser decoded otherwise (worker/browser/charset-repair.ts).
 */
export function textEncodingOf(body: Buffer, mediaType: string, contentType: string | undefined): string {
  const declared = charsetParameter(contentType);
  const bom = bomEncoding(body);
  let encoding: string;
  if (mediaType === 'text/html' || mediaType === 'application/xhtml+xml') {
    // A valid declared charset and no BOM settle the WHATWG order before the prescan, whose byte-by-byte pass is then skipped.
    const named = bom === null && declared !== undefined ? whatwgName(declared) : null;
    encoding = named ?? getEncoding(body, { transportLayerEncodingLabel: declared, defaultEncoding: 'utf-8' });
  } else {
    encoding = bom ?? declared ?? 'utf-8';
  }
  if (!iconv.encodingExists(encoding) || (SINGLE_BYTE_ENCODING.test(encoding) && isMultiByteUtf8(body))) encoding = 'utf-8';
  return encoding;
}

/** What a browser decodes an HTML body as: the WHATWG order with its usual default, windows-1252. */
export function browserEncodingOf(body: Buffer, contentType: string | undefined): string {
  const declared = charsetParameter(contentType);
  return bomEncoding(body) ?? getEncoding(body, { transportLayerEncodingLabel: declared, defaultEncoding: 'windows-1252' });
}

const UTF8_NAME = /^utf-?8$/i;

/** WHATWG encoding names of declared labels (null: not a label), as encoding-sniffer resolves them. Few labels occur. */
const whatwgNames = new Map<string, string | null>();

function whatwgName(label: string): string | null {
  let name = whatwgNames.get(label);
  if (name === undefined) {
    // encoding-sniffer exports no label lookup: an empty body leaves the label's name, or each default when it is not a label.
    const withUtf8 = getEncoding(Buffer.alloc(0), { transportLayerEncodingLabel: label, defaultEncoding: 'utf-8' });
    const withLatin = getEncoding(Buffer.alloc(0), { transportLayerEncodingLabel: label, defaultEncoding: 'windows-1252' });
    name = withUtf8 === withLatin ? withUtf8 : null;
    if (whatwgNames.size < 256) whatwgNames.set(label, name);
  }
  return name;
}

/** Whether the bytes hold some non-ASCII character and are valid UTF-8 throughout. */
function isMultiByteUtf8(body: Buffer): boolean {
  return !isAscii(body) && isUtf8(body);
}
