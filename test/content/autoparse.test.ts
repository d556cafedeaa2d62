import { describe, expect, it } from 'vitest';
import { processContent } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';

function autoparse(page: string, url = 'https://site.example.com/page'): Record<string, unknown> {
  const out = processContent(htmlInput(fixture(page), url, { autoparse: true }));
  return (out.envelope as { data: Record<string, unknown> }).data;
}

describe('autoparse', () => {
  it('harvests JSON-LD (skipping the malformed block) and microdata from a product page', () => {
    const data = autoparse('product.html', 'https://shop.example.com/bags/trailhead-40');
    expect(Object.keys(data)).toEqual(['json_ld', 'opengraph', 'twitter', 'microdata', 'rdfa', 'meta', 'embedded']);
    expect(data.json_ld).toEqual([
      expect.objectContaining({ '@type': 'Product', sku: 'TH-40-GRN', offers: expect.objectContaining({ price: '129.00' }) }),
      expect.objectContaining({ '@type': 'Organization', name: 'Northfield Outdoor' }),
    ]);
    expect(data.microdata).toEqual([
      {
        type: ['https://schema.org/Product'],
        id: 'urn:sku:TH-40-GRN',
        properties: {
          name: ['Trailhead 40L Backpack'],
          image: ['https://shop.example.com/img/th40-front.jpg'],
          brand: [{ type: ['https://schema.org/Brand'], properties: { name: ['Northfield'] } }],
          offers: [
            {
              type: ['https://schema.org/Offer'],
              properties: { price: ['129.00'], priceCurrency: ['EUR'], availability: ['https://schema.org/InStock'] },
            },
          ],
        },
      },
    ]);
  });

  it('reads OpenGraph, Twitter cards and meta tags, repeated keys as arrays', () => {
    const data = autoparse('social.html');
    expect(data.opengraph).toEqual({
      title: 'Festival des Lumières 2024',
      type: 'article',
      url: 'https://events.example.fr/lumieres-2024',
      image: ['https://events.example.fr/img/cover.jpg', 'https://events.example.fr/img/cover-2.jpg'],
      description: 'Quatre nuits de lumière à Lyon.',
      locale: 'fr_FR',
      'article:published_time': '2024-11-02T09:00:00+01:00',
    });
    expect(data.twitter).toEqual({
      card: 'summary_large_image',
      site: '@lumieres',
      title: 'Festival des Lumières 2024',
      image: 'https://events.example.fr/img/card.jpg',
    });
    expect(data.meta).toEqual({ author: 'Office du tourisme', robots: 'index, follow', 'http-equiv:x-ua-compatible': 'IE=edge' });
  });

  it('reads RDFa Lite items with nested items and repeated properties', () => {
    const data = autoparse('rdfa.html');
    expect(data.rdfa).toEqual([
      {
        type: ['Person'],
        vocab: 'https://schema.org/',
        resource: '#ada',
        properties: {
          name: ['Ada Byron'],
          jobTitle: ['Research Mathematician'],
          url: ['https://ada.example.edu/'],
          image: ['https://ada.example.edu/ada.jpg'],
          address: [
            {
              type: ['PostalAddress'],
              vocab: 'https://schema.org/',
              properties: { streetAddress: ['12 Analytical Row'], addressLocality: ['London'] },
            },
          ],
          birthDate: ['1815-12-10'],
          knowsAbout: ['Mathematics', 'Computing'],
        },
      },
      { type: ['Event'], vocab: 'https://schema.org/', properties: { name: ['Engines of Difference lecture'], startDate: ['2024-06-01T18:00'] } },
    ]);
    expect(data.meta).toEqual({});
  });

  it('reads embedded SPA state without evaluating scripts, skipping malformed blocks', () => {
    const data = autoparse('nextjs.html');
    const embedded = data.embedded as Record<string, unknown>;
    expect(embedded.__NEXT_DATA__).toMatchObject({ page: '/listings', props: { pageProps: { listings: [{ id: 101 }, { id: 102 }] } } });
    expect(embedded.__INITIAL_STATE__).toEqual({ user: { loggedIn: false }, filters: { city: 'Porto', beds: 2 } });
    expect(embedded.__APOLLO_STATE__).toEqual({ ROOT_QUERY: { listings: 3 } });
    expect(embedded.application_json).toEqual([{ id: 'feature-flags', data: { newSearch: true } }]);
    expect(Object.keys(embedded).sort()).toEqual(['__APOLLO_STATE__', '__INITIAL_STATE__', '__NEXT_DATA__', 'application_json']);
  });

  it('is refused on a PDF target', () => {
    const input = htmlInput('', 'https://site.example.com/a.pdf', { autoparse: true });
    input.page = { ...input.page, mediaType: 'application/pdf', text: null, bodyBase64: 'JVBERi0=' };
    expect(() => processContent(input)).toThrow(expect.objectContaining({ code: 'ERR::REQUEST::CAPABILITY_UNSUPPORTED' }));
  });
});
