import { parseDocument } from 'htmlparser2';
import type { AnyNode, Element, Text } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { contentRoot } from '../../worker/content/clean.js';
import { toText } from '../../worker/content/text.js';

const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
]);

/** The writer as it was before issue 31: every piece joined, then the whitespace tidied by five passes over the whole text. */
function byPasses(html: string): string {
  const parts: string[] = [];
  const write = (node: AnyNode, inPre: boolean): void => {
    if (node.type === 'text') {
      const data = (node as Text).data;
      parts.push(inPre ? data.replace(/[ \t]/g, '\uE000').replace(/\n/g, '\uE001') : data.replace(/\s+/g, ' '));
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const { name, children } = node as Element;
    if (name === 'br') return void parts.push('\n');
    if (name === 'img') return;
    const block = BLOCKS.has(name);
    const item = name === 'li' || name === 'tr' || name === 'dt' || name === 'dd';
    if (block) parts.push(item ? '\n' : '\n\n');
    if (name === 'li') parts.push('- ');
    if (name === 'td' || name === 'th') parts.push('\t');
    for (const child of children) write(child, inPre || name === 'pre');
    if (block && !item) parts.push('\n\n');
  };
  write(contentRoot(parseDocument(html)), false);
  return parts
    .join('')
    .replace(/[ \t]*\n[ \t]*/g, '\n')
    .replace(/ {2,}/g, ' ')
    .replace(/\n{3,}/g, '\n\n')
    .replaceAll('\uE000', ' ')
    .replaceAll('\uE001', '\n')
    .trim();
}

const FRAGMENTS = [
  ' ', '  ', '\t', '\n', '\r', '\u00a0', '\u2028', '\ufeff', '\uE000', '\uE001', 'a', 'bc', '-', 'x y', '<br>', '<p>', '</p>',
  '<li>', '</li>', '<pre>', '</pre>', '<td>', '</td>', '<th>', '<tr>', '<div>', '</div>', '<img>', '<span>', '</span>', '<body>',
  '<dt>', '<dd>', '<h2>', '</h2>',
];

describe('toText', () => {
  it('writes what joining the pieces and tidying the whole text after gave, on generated pages', () => {
    let seed = 1;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    for (let page = 0; page < 20_000; page += 1) {
      const html = Array.from({ length: 1 + (next() % 30) }, () => FRAGMENTS[next() % FRAGMENTS.length]).join('');
      expect([html, toText(parseDocument(html))]).toEqual([html, byPasses(html)]);
    }
  });

  it('keeps <pre> whitespace, its tabs as spaces, and tidies the rest', () => {
    expect(toText(parseDocument('<p>  a \n b </p><pre>\tx  y\n z</pre><ul><li> one</li></ul><table><tr><td>c</td><td> d</td></tr></table>'))).toBe(
      'a b\n\n x  y\n z\n\n- one\n\nc\t d',
    );
  });
});
