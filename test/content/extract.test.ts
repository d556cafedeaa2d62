import { describe, expect, it } from 'vitest';
import { validateExtractRules } from '../../lib/extract/extract-rules.js';
import { processContent } from '../../worker/content/pipeline.js';
import { fixture, htmlInput } from './content-input.js';

const PRODUCT_URL = 'https://shop.example.com/bags/trailhead-40';

function extract(rules: Record<string, unknown>) {
  const out = processContent(htmlInput(fixture('product.html'), PRODUCT_URL, { extract: rules }));
  return out.envelope as { data: Record<string, unknown>; empty_fields: string[] };
}

describe('validateExtractRules', () => {
  it('normalises a selector map', () => {
    const rules = validateExtractRules({ title: 'h1', links: { selector: 'a', output: '@href', type: 'list' } });
    expect(rules.form).toBe('selector_map');
    expect(rules.fields[1]).toEqual({
      name: 'links',
      rule: { kind: 'value', selector: 'a', output: { kind: 'attr', name: 'href' }, list: true, cast: 'string' },
    });
  });

  it('recognises the JSON Schema form', () => {
    const rules = validateExtractRules({ type: 'object', properties: { price: { type: 'number', selector: '.price' } } });
    expect(rules.form).toBe('json_schema');
    expect(rules.fields[0].rule).toMatchObject({ kind: 'value', cast: 'number' });
  });

  it.each([
    [[], 'must be an object'],
    [{}, 'has no rules'],
    [{ title: 'h1[[' }, 'extract.title: selector does not parse'],
    [{ title: { selector: 'h1', output: 'bogus' } }, 'extract.title: `output`'],
    [{ title: { selector: 'h1', colour: 'red' } }, 'unknown key `colour`'],
    [{ title: 'p:nosuchpseudo' }, 'not supported'],
    [{ title: 'div:has(div:has(div:has(p)))' }, 'nests pseudo-classes'],
    [{ type: 'object', properties: { price: { type: 'number' } } }, 'extract.price: needs a `selector`'],
    [{ type: 'object', properties: { price: { type: 'money', selector: 'p' } } }, 'type must be one of'],
    [Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`f${i}`, 'p'])), 'more than 100 rules'],
  ])('refuses %j with ERR::EXTRACT::INVALID_RULES', (rules, why) => {
    expect(() => validateExtractRules(rules)).toThrow(
      expect.objectContaining({ code: 'ERR::EXTRACT::INVALID_RULES', detail: expect.stringContaining(why) }),
    );
  });
});

describe('extraction', () => {
  it('extracts text, attributes, lists, nested lists of objects and coerces types (selector map)', () => {
    const { data, empty_fields } = extract({
      title: 'h1',
      price: { selector: '.price', cast: 'number' },
      images: { selector: 'img.gallery', output: '@src', type: 'list' },
      features: { selector: '.features li', type: 'list' },
      reviews: { selector: '.review', type: 'list', output: { author: '.author', stars: { selector: '.stars', cast: 'integer' } } },
      manual: { selector: 'a.manual', output: '@href' },
      sku: '.sku',
    });
    expect(data).toEqual({
      title: 'Trailhead 40L Backpack',
      price: 1299,
      images: ['https://shop.example.com/img/th40-front.jpg', 'https://shop.example.com/img/th40-side.jpg'],
      features: ['Rain cover included', 'Hip-belt pockets', 'Hydration sleeve'],
      reviews: [
        { author: 'Ana', stars: 5 },
        { author: 'Tomás', stars: 4 },
      ],
      manual: 'https://shop.example.com/bags/docs/th40-manual.pdf',
      sku: null,
    });
    expect(empty_fields).toEqual(['sku']);
  });

  it('extracts with a JSON Schema: nested object, arrays of values and of objects, coercion', () => {
    const { data, empty_fields } = extract({
      type: 'object',
      properties: {
        name: { type: 'string', selector: 'h1' },
        rating: { type: 'number', selector: '.rating', output: '@data-score' },
        in_stock: { type: 'boolean', selector: '.stock' },
        offer: { type: 'object', selector: '[itemprop=offers]', properties: { currency: { type: 'string', selector: 'meta', output: '@content' } } },
        features: { type: 'array', selector: '.features li', items: { type: 'string' } },
        reviews: {
          type: 'array',
          selector: '.review',
          items: { type: 'object', properties: { author: { type: 'string', selector: '.author' }, title: { type: 'string', selector: 'h3' } } },
        },
        colours: { type: 'array', selector: '.colour' },
      },
    });
    expect(data).toEqual({
      name: 'Trailhead 40L Backpack',
      rating: 4.6,
      in_stock: true,
      offer: { currency: 'EUR' },
      features: ['Rain cover included', 'Hip-belt pockets', 'Hydration sleeve'],
      reviews: [
        { author: 'Ana', title: null },
        { author: 'Tomás', title: null },
      ],
      colours: [],
    });
    expect(empty_fields).toEqual(['reviews[].title', 'colours']);
  });

  it('refuses extract_preset after the fetch', () => {
    const input = htmlInput(fixture('product.html'), PRODUCT_URL, { extract_preset: 'amazon-product' });
    expect(() => processContent(input)).toThrow(expect.objectContaining({ code: 'ERR::EXTRACT::INVALID_RULES' }));
  });
});
