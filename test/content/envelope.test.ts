import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';

describe('links', () => {
  it('lists absolute, de-duplicated http(s) anchor targets resolved against <base href>', () => {
    const out = processContent(htmlInput(fixture('base-links.html'), 'https://docs.example.net/start', { links: true, response_format: 'markdown' }));
    const envelope = out.envelope as { links: string[]; content: string };
    expect(envelope.links).toEqual([
      'https://cdn.example.net/docs/v2/intro.html',
      'https://cdn.example.net/docs/v2/auth/keys.html',
      'https://cdn.example.net/docs/v1/',
      'https://cdn.example.net/status',
      'https://other.example.com/x?y=1',
    ]);
    expect(envelope.content).toContain('![Diagram](https://cdn.example.net/docs/v2/img/diagram.png)');
    expect(envelope.content).toContain('[Key rotation](https://cdn.example.net/docs/v2/auth/keys.html#rotate)');
  });

  it('is refused on a PDF target', () => {
    const input = htmlInput('', 'https://docs.example.net/a.pdf', { links: true });
    input.page = { ...input.page, mediaType: 'application/pdf', text: null, bodyBase64: 'JVBERi0=' };
    expect(() => processContent(input)).toThrow(expect.objectContaining({ code: 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', targetStatus: 200 }));
  });
});

describe('the JSON envelope', () => {
  it('carries every field, and travels as an object with an empty body', () => {
    const input = htmlInput(fixture('article.html'), 'https://journal.example.com/guides/2024/tides.html', { response_format: 'json' });
    input.page.status = 404;
    input.engine = 'obscura';
    const out = processContent(input);
    expect(out.contentType).toBe('application/json');
    expect(out.body).toBe('');
    expect(out.envelope).toEqual({
      url: 'https://journal.example.com/guides/2024/tides.html',
      final_url: 'https://journal.example.com/guides/2024/tides.html',
      status: 404,
      engine: 'obscura',
      format: 'markdown',
      content: expect.stringMatching(/^# How Tide Tables Work/),
      content_encoding: 'utf8',
      metadata: {
        title: 'How Tide Tables Work | The Coastal Journal',
        description: 'A plain guide to reading tide tables, with worked examples.',
        language: 'en-GB',
        canonical: 'https://journal.example.com/guides/tide-tables',
        headline: 'How Tide Tables Work',
        byline: 'Mara Quinn',
        authors: ['Mara Quinn'],
        published: null,
        modified: null,
        site_name: null,
        image: null,
        content_type: 'text/html',
      },
      data: null,
      empty_fields: [],
      links: null,
      network: null,
      screenshots: null,
      action_results: null,
      warnings: [],
      diagnostics: { attempts: [] },
    });
  });

  it('is forced by screenshot, with content in the asked format and the images passed through', () => {
    const input = htmlInput(fixture('article.html'), 'https://journal.example.com/a', { screenshot: true, response_format: 'text' });
    input.extras = { screenshots: [{ name: 'screenshot', format: 'png', data: 'iVBORw0KGgo=' }], network: [{ url: 'https://journal.example.com/api' }] };
    const envelope = processContent(input).envelope as Record<string, unknown>;
    expect(envelope.format).toBe('text');
    expect(envelope.content).toMatch(/^How Tide Tables Work\n\n/);
    expect(envelope.screenshots).toEqual([{ name: 'screenshot', format: 'png', data: 'iVBORw0KGgo=' }]);
    expect(envelope.network).toEqual([{ url: 'https://journal.example.com/api' }]);
  });

  it('puts autoparse under data.autoparse beside extract fields', () => {
    const out = processContent(htmlInput(fixture('social.html'), 'https://events.example.fr/', { extract: { heading: 'h1' }, autoparse: true }));
    const data = (out.envelope as { data: Record<string, unknown> }).data;
    expect(data.heading).toBe('Festival des Lumières 2024');
    expect(data.autoparse).toMatchObject({ twitter: { card: 'summary_large_image' } });
  });
});

describe('pdf', () => {
  it('answers the rendered PDF as base64 application/pdf', () => {
    const input = htmlInput(fixture('article.html'), 'https://journal.example.com/a', { response_format: 'pdf', engine: 'chromium' });
    input.extras = { pdfBase64: 'JVBERi0xLjQK' };
    const out = processContent(input);
    expect(out).toMatchObject({ contentType: 'application/pdf', body: 'JVBERi0xLjQK', bodyEncoding: 'base64', envelope: null });
  });

  it('passes a PDF target through for html and refuses markdown of it', () => {
    const input = htmlInput('', 'https://journal.example.com/a.pdf');
    input.page = { ...input.page, mediaType: 'application/pdf', text: null, bodyBase64: 'JVBERi0=' };
    expect(processContent(input)).toMatchObject({ contentType: 'application/pdf', body: 'JVBERi0=', bodyEncoding: 'base64' });
    input.params = { ...input.params, response_format: 'markdown' };
    expect(() => processContent(input)).toThrow(expect.objectContaining({ code: 'ERR::REQUEST::CAPABILITY_UNSUPPORTED' }));
  });
});
