import { describe, expect, it } from 'vitest';
import type { ParentNode } from 'domhandler';
import { contentRoot } from '../../worker/content/clean.js';
import { loadDocument } from '../../worker/content/document.js';
import { markHtmlNamespace } from '../../worker/content/html-namespace.js';
import { markdownDom } from '../../worker/content/markdown-dom.js';
import { markdownOfMarkup, toMarkdown } from '../../worker/content/markdown.js';

/** The body's nodes as the pipeline hands them to the markdown writer, and their markup. */
function parsed(body: string): { nodes: ParentNode['children']; markup: string } {
  const loaded = loadDocument(`<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`, 'https://example.com/');
  const root = contentRoot(loaded.document);
  markHtmlNamespace([root]);
  return { nodes: root.children, markup: loaded.$(root).html() ?? '' };
}

/** Trees turndown gets built from the nodes: each must give the markdown turndown's own parser gives from the markup. */
const BUILT = {
  'paragraphs, emphasis, links and images': '<p>One <b>bold</b> and <a href="/x" title="T">a link</a>.</p>\n<p><img src="/i.png" alt="pic"> after</p>',
  'line breaks': '<p>By A. Writer<br>\n<em>Staff</em></p>',
  'CRLF and lone CR in text and attributes': '<p>one\r\ntwo\rthree <a href="/a" title="x\r\ny">l</a></p>',
  'the newline that opens a pre': '<pre>\n  code\n    more\n</pre><pre><code class="language-js">\nlet a = 1;</code></pre>',
  'rows straight under the table': '<table>\n<tr><td>a</td><td>b</td></tr>\n<tr><td>1</td><td>2</td></tr>\n</table>',
  'a head section, then bare rows': '<table><thead><tr><th>h</th></tr></thead>\n<tr><td>x</td></tr><tr><td>y</td></tr></table>',
  'table parts outside any table': '<div><tr><td>cell one</td><td>cell <b>two</b></td></tr></div><p>x<td>y</td>z</p>',
  'a block inside a paragraph': '<p>Lead <i>in</i><div>block</div>tail <b>b</b><p>next</p> end</p><p>after</p>',
  'lists, quotes and entities': '<ol start="3"><li>a &amp; b</li><li>c &lt;d&gt;&nbsp;e</li></ol><blockquote>q</blockquote><ul><li>x<ul><li>y</li></ul></li></ul>',
  'comments and leading markdown characters': '<p>1<!-- c -->. not a list</p><p>- dash <code>`tick`</code></p>',
  'comments between spaces, alone, and before the newline that opens a pre':
    '<p>a <!-- c --> b<!-- c --> <i>c</i></p><div><!-- only --></div><pre><!-- c -->\n  code</pre><!-- last -->',
  'blank elements, with and without void or meaningful descendants':
    '<div><span> </span><a href="/x"><img src="/y.png"></a><p> <br> </p><table><tr><td> </td></tr></table><em> <b> </b> </em></div>',
  'nested lists and links, each context met more than once':
    '<ul><li><a href="/a">a</a><ul><li><a href="/b">b</a><ol><li>c</li></ol></li></ul></li><li><a href="/d">d</a></li></ul>',
};

/** Trees the HTML parsing rules would rebuild: these take the serialising road. */
const REFUSED = {
  'a link inside a link': '<p><a href="/a">outer <a href="/b">inner</a></a></p>',
  'a block deeper inside a paragraph': '<p><span>a<div>b</div>c</span></p>',
  'text straight in a table': '<table>stray<tr><td>a</td></tr></table>',
  'a checkbox in a list item': '<ul><li><input type="checkbox" checked> done</li></ul>',
  'svg': '<p>a<svg><text>b</text></svg></p>',
  'a link inside a link, after links the same context allowed': '<ul><li><a href="/a">a</a></li><li><a href="/b">b <a href="/c">c</a></a></li></ul>',
};

describe('markdown from the parsed nodes', () => {
  for (const [name, body] of Object.entries(BUILT)) {
    it(`gives what turndown gives from the markup: ${name}`, () => {
      const { nodes, markup } = parsed(body);
      expect(markdownDom(nodes)).not.toBeNull();
      expect(toMarkdown(nodes, () => markup)).toBe(markdownOfMarkup(markup));
    });
  }

  for (const [name, body] of Object.entries(REFUSED)) {
    it(`reads the markup instead where the parser would build another tree: ${name}`, () => {
      const { nodes, markup } = parsed(body);
      expect(markdownDom(nodes)).toBeNull();
      expect(toMarkdown(nodes, () => markup)).toBe(markdownOfMarkup(markup));
    });
  }
});

describe('the DOM turndown reads', () => {
  it('lists an element\'s nodes and element children in order, one shared empty list for an element without children', () => {
    const root = markdownDom(parsed('<p>a <b>b</b> c <i>d</i></p><br><hr>').nodes) as unknown as HTMLElement;
    const paragraph = root.firstChild as HTMLElement;
    expect(Array.from(paragraph.childNodes, (node) => node.textContent)).toEqual(['a ', 'b', ' c ', 'd']);
    expect(Array.from(paragraph.children, (node) => node.nodeName)).toEqual(['B', 'I']);
    expect(Array.from(root.children, (node) => node.nodeName)).toEqual(['P', 'BR', 'HR']);
    const [, br, hr] = Array.from(root.children);
    expect(br.childNodes).toHaveLength(0);
    expect(br.childNodes).toBe(hr.childNodes);
  });
});
