import { parseHTML } from 'linkedom';
import { parseDocument } from 'htmlparser2';
import render from 'dom-serializer';
import { isTag, type ChildNode } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { parsedCopy } from '../../worker/content/parsed-copy.js';

/** linkedom elements as Readability leaves them: parsed, then touched by DOM calls. */
function linkedomElements(body: string, touch: (document: Document) => void = () => undefined): Element[] {
  const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${body}</body></html>`);
  touch(document as unknown as Document);
  return Array.from(document.body.children as unknown as ArrayLike<Element>);
}

/** What the old road gave: the elements' markup parsed again. */
function reparsed(elements: Element[]): ChildNode[] {
  return parseDocument(elements.map((element) => element.outerHTML).join('')).children;
}

/** A tree's shape with every field a later stage reads: names, attributes in order, text and comments, parents and siblings. */
function shape(nodes: ChildNode[]): unknown {
  return nodes.map((node) => ({
    type: node.type,
    linked: node.parent?.type === 'root' || node.parent?.type === 'tag',
    siblings: [node.prev === null ? null : node.prev.type, node.next === null ? null : node.next.type],
    ...(isTag(node) ? { name: node.name, attributes: Object.entries(node.attribs), children: shape(node.children) } : { data: 'data' in node ? node.data : null }),
  }));
}

const COPIED = {
  'paragraphs, links and images': '<div><p>One <b>bold</b> and <a href="/x?a=1&amp;b=2" title="T">a link</a>.</p><p><img src="/i.png" alt="pic"> after</p></div>',
  'entities in text and attributes': '<div><p title="&quot;q&quot; &amp;lt; &amp;copy=1 &amp;amp">a &amp; b &lt;c&gt;&nbsp;d &amp;lt;</p></div>',
  'comments and neighbouring texts': '<div><p>1<!-- c -->. two</p></div>',
  'lists, tables and preformatted text': '<div><ul><li>a<ul><li>b</li></ul></li></ul><table><tbody><tr><td>1</td></tr></tbody></table><pre>\n x\r\n</pre></div>',
};

describe('parsed copies of linkedom nodes', () => {
  it.each(Object.entries(COPIED))('copies %s as parsing their markup again would', (_name, body) => {
    const elements = linkedomElements(body);
    const copy = parsedCopy(elements);
    expect(copy).not.toBeNull();
    expect(shape(copy!)).toEqual(shape(reparsed(elements)));
    expect(render(copy!)).toBe(render(reparsed(elements)));
  });

  it('copies what DOM calls leave: upper-case names, split and empty texts, empty id and class, a headline put first', () => {
    const elements = linkedomElements('<div id="a"><p class="x">one</p></div>', (document) => {
      const div = document.body.firstElementChild!;
      const made = document.createElement('DIV');
      made.setAttribute('class', '');
      made.setAttribute('id', '');
      made.setAttribute('hidden', '');
      made.append(document.createTextNode('two '), document.createTextNode(''), document.createTextNode('& three'));
      div.append(made);
      const h1 = document.createElement('h1');
      h1.textContent = 'The <headline>';
      document.body.prepend(h1);
    });
    const copy = parsedCopy(elements);
    expect(copy).not.toBeNull();
    expect(shape(copy!)).toEqual(shape(reparsed(elements)));
  });

  it.each([
    ['a paragraph in a paragraph', (document: Document) => document.querySelector('p')!.append(document.createElement('p'))],
    ['a heading in a paragraph', (document: Document) => document.querySelector('p')!.append(document.createElement('h2'))],
    [
      'a cell in a cell',
      (document: Document) => {
        const cell = document.createElement('td');
        cell.append(document.createElement('td'));
        document.querySelector('p')!.append(cell);
      },
    ],
    ['a script', (document: Document) => document.querySelector('p')!.append(document.createElement('script'))],
    ['a comment that would end early', (document: Document) => document.querySelector('p')!.append(document.createComment('a --> b'))],
  ])('refuses %s, which parsing the markup would rebuild', (_name, touch) => {
    expect(parsedCopy(linkedomElements('<div><p>text</p></div>', touch))).toBeNull();
  });
});
