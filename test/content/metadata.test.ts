import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { htmlInput } from './content-input.js';

function metadataOf(html: string, url = 'https://news.example.org/nature/harbour-seals?utm=x'): Record<string, unknown> {
  const out = processContent(htmlInput(html, url, { response_format: 'json' }));
  return (out.envelope as { metadata: Record<string, unknown> }).metadata;
}

describe('article metadata in the envelope', () => {
  it('reads JSON-LD first: headline, authors, dates as ISO 8601, publisher; OpenGraph for site name and image', () => {
    const html = readFileSync(new URL('./fixtures/article.html', import.meta.url), 'utf8');
    expect(metadataOf(html)).toEqual({
      title: 'Harbour Seals Return to the Estuary | Shore Gazette',
      headline: 'Harbour seals return to the estuary',
      description: 'Counts show the largest colony in forty years.',
      language: 'en-US',
      canonical: 'https://news.example.org/nature/harbour-seals',
      byline: 'Ines Morrow, Tom Reyes',
      authors: ['Ines Morrow', 'Tom Reyes'],
      published: '2024-03-05T07:30:00.000Z',
      modified: '2024-03-06T10:00:00.000Z',
      site_name: 'Shore Gazette',
      image: 'https://news.example.org/img/seals.jpg',
      content_type: 'text/html',
    });
  });

  it('finds the article in a JSON-LD @graph and prefers it to the WebPage', () => {
    const ld = {
      '@context': 'https://schema.org',
      '@graph': [
        { '@type': 'WebSite', name: 'Graph Weekly' },
        { '@type': 'WebPage', name: 'A web page', datePublished: '2020-01-01' },
        { '@type': 'BlogPosting', headline: 'Graph headline', author: { '@type': 'Person', name: 'Ada Byte' }, datePublished: '2023-07-01', image: { '@type': 'ImageObject', url: '/i/cover.png' } },
      ],
    };
    const html = `<html><head><title>t</title><script type="application/ld+json">${JSON.stringify(ld)}</script></head><body><p>x</p></body></html>`;
    expect(metadataOf(html, 'https://blog.example.net/post')).toMatchObject({
      headline: 'Graph headline',
      authors: ['Ada Byte'],
      published: '2023-07-01',
      site_name: 'Graph Weekly',
      image: 'https://blog.example.net/i/cover.png',
    });
  });

  it('falls back to OpenGraph and article: tags without JSON-LD', () => {
    const html = `<html><head><title>Page title</title>
      <meta property="og:title" content="OG headline"><meta property="og:site_name" content="OG Site">
      <meta property="og:url" content="https://og.example.com/canonical-from-og">
      <meta property="og:image" content="https://cdn.example.com/og.jpg"><meta property="og:description" content="OG description">
      <meta property="article:published_time" content="2022-11-05T09:15:00Z"><meta property="article:modified_time" content="2022-11-06T18:00:00+02:00">
      <meta property="og:locale" content="fr_FR">
      </head><body><p>x</p></body></html>`;
    expect(metadataOf(html)).toMatchObject({
      title: 'Page title',
      headline: 'OG headline',
      site_name: 'OG Site',
      canonical: 'https://og.example.com/canonical-from-og',
      image: 'https://cdn.example.com/og.jpg',
      description: 'OG description',
      published: '2022-11-05T09:15:00.000Z',
      modified: '2022-11-06T16:00:00.000Z',
      language: 'fr_FR',
    });
  });

  it('falls back to plain meta tags and the page itself', () => {
    const html = `<html lang="de"><head><title>Plain</title><meta name="author" content="Karl Weiss">
      <meta name="description" content="Meta description"><meta name="date" content="2021-05-04">
      <link rel="canonical" href="/kanonisch"></head>
      <body><h1>Die Überschrift</h1><p>Text.</p></body></html>`;
    expect(metadataOf(html, 'https://de.example.com/a/b')).toMatchObject({
      headline: 'Die Überschrift',
      byline: 'Karl Weiss',
      authors: ['Karl Weiss'],
      description: 'Meta description',
      published: '2021-05-04',
      modified: null,
      language: 'de',
      canonical: 'https://de.example.com/kanonisch',
      site_name: null,
    });
  });

  it('reads a byline and a <time> from the page when no tag names them, and ignores author URLs', () => {
    const html = `<html><head><meta property="article:author" content="https://social.example/ines"></head>
      <body><article><h1>H</h1><p class="byline">By Ines Morrow · 3 March</p><time datetime="2024-03-03T12:00:00Z">3 March</time><p>Body.</p></article></body></html>`;
    expect(metadataOf(html)).toMatchObject({ authors: ['Ines Morrow'], byline: 'Ines Morrow', published: '2024-03-03T12:00:00.000Z' });
  });
});
