import { describe, expect, it } from 'vitest';
import { NetworkCaptureSchema } from '../../lib/scrape/network-capture-schema.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { processContent, type ContentInput } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';
const JSON_TEXT = '{"items":[{"id":1,"name":"<b>tide</b>"}],"next":null}\n';

function target(mediaType: string, body: { text: string } | { bodyBase64: string }, overrides: Partial<ScrapeParams> = {}): ContentInput {
  const input = htmlInput('', 'https://api.example.com/resource', overrides);
  const text = 'text' in body ? body.text : null;
  const bodyBase64 = 'bodyBase64' in body ? body.bodyBase64 : undefined;
  input.page = { ...input.page, status: 203, mediaType, text, bodyBase64 };
  return input;
}

describe('network_capture', () => {
  it('alone forces the envelope and carries the captured traffic under network', () => {
    const input = htmlInput(fixture('article.html'), 'https://journal.example.com/a', {
      network_capture: NetworkCaptureSchema.parse({ url_pattern: '/api/' }),
    });
    input.extras = { network: [{ url: 'https://journal.example.com/api/tides', status: 200 }] };
    const out = processContent(input);
    expect(out.contentType).toBe('application/json');
    const envelope = out.envelope as unknown as Record<string, unknown>;
    expect(envelope.network).toEqual([{ url: 'https://journal.example.com/api/tides', status: 200 }]);
    expect(envelope.format).toBe('html');
    expect(envelope.content).toBe(fixture('article.html'));
  });
});

describe('a textual non-HTML target', () => {
  it('answers html as text/html with the text unchanged', () => {
    const out = processContent(target('application/json', { text: JSON_TEXT }));
    expect(out).toMatchObject({ contentType: 'text/html; charset=utf-8', body: JSON_TEXT, bodyEncoding: 'utf8', envelope: null });
  });

  it('answers markdown and text in their own media types, text unchanged', () => {
    expect(processContent(target('text/csv', { text: 'a,b\n1,2\n' }, { response_format: 'markdown' }))).toMatchObject({
      contentType: 'text/markdown; charset=utf-8',
      body: 'a,b\n1,2\n',
    });
    expect(processContent(target('application/json', { text: JSON_TEXT }, { response_format: 'text' }))).toMatchObject({
      contentType: 'text/plain; charset=utf-8',
      body: JSON_TEXT,
    });
  });

  it('keeps the real media type in the envelope metadata', () => {
    const envelope = processContent(target('application/json', { text: JSON_TEXT }, { response_format: 'json' })).envelope as Record<string, unknown>;
    expect(envelope).toMatchObject({ content: JSON_TEXT, content_encoding: 'utf8', metadata: { content_type: 'application/json' } });
  });
});

describe('a PDF target', () => {
  it('answers html as application/pdf with its own bytes', () => {
    const out = processContent(target('application/pdf', { bodyBase64: 'JVBERi0xLjQK' }));
    expect(out).toMatchObject({ contentType: 'application/pdf', body: 'JVBERi0xLjQK', bodyEncoding: 'base64', envelope: null });
  });
});

describe('a binary non-PDF target', () => {
  for (const format of ['html', 'markdown', 'text'] as const) {
    it(`refuses response_format=${format} with a pointer to json`, () => {
      const input = target('image/png', { bodyBase64: PNG_BASE64 }, { response_format: format });
      expect(() => processContent(input)).toThrow(
        expect.objectContaining({
          code: 'ERR::REQUEST::CAPABILITY_UNSUPPORTED',
          targetStatus: 203,
          detail: expect.stringMatching(new RegExp(`response_format=${format} .*image/png.*use response_format=json`)),
        }),
      );
    });
  }

  it('gives its bytes base64 in the envelope with response_format=json', () => {
    const out = processContent(target('image/png', { bodyBase64: PNG_BASE64 }, { response_format: 'json' }));
    expect(out.contentType).toBe('application/json');
    const envelope = out.envelope as unknown as Record<string, unknown>;
    expect(envelope).toMatchObject({ status: 203, format: null, content: PNG_BASE64, content_encoding: 'base64', metadata: { content_type: 'image/png' } });
    expect(Buffer.from(envelope.content as string, 'base64').subarray(1, 4).toString('latin1')).toBe('PNG');
  });
});
