import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { decodeText } from '../../../../worker/fetch/body.js';

const html = (head: string, body: string) => `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;

describe('decodeText: the WHATWG order for HTML', () => {
  it('takes a valid Content-Type charset over a <meta charset>', () => {
    const bytes = iconv.encode(html('<meta charset="shift_jis">', 'caf\u00e9'), 'windows-1252');
    expect(decodeText(bytes, 'text/html', 'text/html; charset=iso-8859-1')).toContain('caf\u00e9');
    // The header's UTF-8 wins over the meta's Shift_JIS: the latin-1 byte is not UTF-8.
    expect(decodeText(bytes, 'text/html', 'text/html; charset=utf-8')).toContain('caf\ufffd');
  });

  it('prescans the <meta> when the Content-Type charset is not an encoding label', () => {
    const bytes = iconv.encode(html('<meta charset="shift_jis">', '\u65e5\u672c\u8a9e'), 'shift_jis');
    expect(decodeText(bytes, 'text/html', 'text/html; charset=no-such-encoding')).toContain('\u65e5\u672c\u8a9e');
    expect(decodeText(bytes, 'text/html', 'text/html')).toContain('\u65e5\u672c\u8a9e');
  });

  it('takes a byte order mark over the Content-Type charset, and drops the mark', () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(html('', 'na\u00efve'), 'utf-16le')]);
    expect(decodeText(utf16, 'text/html', 'text/html; charset=utf-8')).toBe(html('', 'na\u00efve'));
    const utf8 = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(html('', '\u00fcber'))]);
    expect(decodeText(utf8, 'text/html', 'text/html; charset=windows-1252')).toBe(html('', '\u00fcber'));
  });

  it('decodes UTF-8 the same whether it is valid or not', () => {
    expect(decodeText(Buffer.from(html('', '\u2603 ok')), 'text/html', 'text/html; charset=UTF-8')).toBe(html('', '\u2603 ok'));
    const truncated = Buffer.concat([Buffer.from('<p>snow '), Buffer.from('\u2603').subarray(0, 2), Buffer.from(' man</p>')]);
    expect(decodeText(truncated, 'text/html', 'text/html; charset=utf-8')).toBe('<p>snow \ufffd man</p>');
  });
});
