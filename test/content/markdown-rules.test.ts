import { describe, expect, it } from 'vitest';
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import { markdownOfMarkup } from '../../worker/content/markdown.js';

/** Markdown the rules gave before they were made to allocate less (at 2586827), pinned. */
const PINNED: Record<string, [string, string]> = {
  'link text of spaces, tabs, newlines and no-break spaces; parentheses in the address': [
    '<p><a href="/a">one two</a> <a href="/b">one  two\tthree\nfour\u00a0five</a> <a href="/c(1)" title="t">x</a></p>',
    '[one two](/a) [one two three four five](/b) [x](/c(1) "t")',
  ],
  'links padded, unusable and empty': [
    '<p><a href=" /d "> lead and trail </a><a href="javascript:void(0)">js  link</a><a href="/e">   </a></p>',
    '[lead and trail](/d) js link',
  ],
  'list items of one line, of paragraphs, with breaks and nested lists': [
    '<ul><li>one</li><li><p>para</p><p>two</p></li><li>a<br>b</li><li>x<ul><li>y</li><li>z</li></ul></li></ul>',
    '- one\n- para\n  \n  two\n  \n- a  \n  b\n- x\n  - y\n  - z',
  ],
  'ordered lists from a start, with trailing newlines, and an unusable start': [
    '<ol start="7"><li>a</li><li><p>b</p></li><li>c\n\n</li></ol><ol start="x"><li>q</li></ol>',
    '7. a\n8. b\n   \n9. c\n\n1. q',
  ],
  'images with brackets and newlines in the alt, data and lazy sources': [
    '<p><img src="/i(1).png" alt="a [b]\nc"><img src="data:x"><img data-src="/lazy.png"></p>',
    '![a  b  c](/i(1).png)![](/lazy.png)',
  ],
  'blank elements, with and without void or meaningful descendants': [
    '<div><span> </span><a href="/x"><img src="/y.png"></a><p> <br> </p><table><tr><td> </td></tr></table></div>',
    '[![](/y.png)](/x)\n\n  \n\n|  |\n| --- |',
  ],
};

describe('markdown rules', () => {
  for (const [name, [html, markdown]] of Object.entries(PINNED)) {
    it(`gives the markdown it gave: ${name}`, () => {
      expect(markdownOfMarkup(html)).toBe(markdown);
    });
  }
});

/** The links and images a CommonMark reader finds in `markdown`, with their addresses as it reads them. */
function readLinks(markdown: string): Array<{ kind: string; href: string | null; text: string }> {
  const found: Array<{ kind: string; href: string | null; text: string }> = [];
  const visit = (tokens: Token[]): void => {
    for (const [index, token] of tokens.entries()) {
      if (token.type === 'link_open') found.push({ kind: 'link', href: token.attrGet('href'), text: tokens[index + 1]?.content ?? '' });
      if (token.type === 'image') found.push({ kind: 'image', href: token.attrGet('src'), text: token.content });
      if (token.children) visit(token.children);
    }
  };
  visit(new MarkdownIt().parse(markdown, {}));
  return found;
}

describe('link and image addresses a markdown reader reads whole', () => {
  const CASES: Array<[string, string, string, Array<{ kind: string; href: string; text: string }>]> = [
    ['a ) without its (', '<p><a href="/q?x=a)b">t</a> after</p>', '[t](/q?x=a%29b) after', [{ kind: 'link', href: '/q?x=a%29b', text: 't' }]],
    ['a ( without its )', '<p><a href="/f(1">t</a></p>', '[t](/f%281)', [{ kind: 'link', href: '/f%281', text: 't' }]],
    ['pairs and a stray )', '<p><a href="/a(b)c)d">t</a></p>', '[t](/a%28b%29c%29d)', [{ kind: 'link', href: '/a%28b%29c%29d', text: 't' }]],
    ['pairs, kept as written', '<p><a href="/wiki/Foo_(bar)">t</a></p>', '[t](/wiki/Foo_(bar))', [{ kind: 'link', href: '/wiki/Foo_(bar)', text: 't' }]],
    [
      'spaces in a mail address kept as written',
      '<p><a href="mailto:a@b.example?subject=Two words">mail</a></p>',
      '[mail](mailto:a@b.example?subject=Two%20words)',
      [{ kind: 'link', href: 'mailto:a@b.example?subject=Two%20words', text: 'mail' }],
    ],
    ['an image with a stray )', '<p><img src="/p)x.png" alt="pic"></p>', '![pic](/p%29x.png)', [{ kind: 'image', href: '/p%29x.png', text: 'pic' }]],
    [
      'a title after an address that needed encoding',
      '<p><a href="/n)1" title="the title">t</a></p>',
      '[t](/n%291 "the title")',
      [{ kind: 'link', href: '/n%291', text: 't' }],
    ],
  ];
  for (const [name, html, markdown, links] of CASES) {
    it(`writes ${name} so the link ends where it should`, () => {
      const written = markdownOfMarkup(html);
      expect(written).toBe(markdown);
      expect(readLinks(written)).toEqual(links);
    });
  }
});
