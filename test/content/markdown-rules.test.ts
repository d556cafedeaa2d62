import { describe, expect, it } from 'vitest';
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
