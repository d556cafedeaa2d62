import { describe, expect, it } from 'vitest';
import TurndownService from 'turndown';
import { DomElement } from '../../worker/content/turndown-dom.js';
import { indexRulesByName } from '../../worker/content/turndown-rules.js';

/** A service with named, listed and function filters, rules added over turndown's own, kept and removed elements. */
function service(): TurndownService {
  const turndown = new TurndownService({ codeBlockStyle: 'fenced' });
  turndown.addRule('marked', { filter: ['mark', 'ins'], replacement: (content) => `==${content}==` });
  turndown.addRule('linkWithTitle', { filter: (node) => node.nodeName === 'A' && node.getAttribute('title') !== null, replacement: (content) => content });
  turndown.addRule('paragraphAgain', { filter: 'p', replacement: (content) => content });
  turndown.keep((node) => node.getAttribute('data-keep') !== null);
  turndown.keep(['kbd']);
  turndown.remove(['script', 'mark']);
  return turndown;
}

function element(name: string, attributes: Record<string, string> = {}, parent = new DomElement('div', {})): DomElement {
  const node = new DomElement(name, attributes);
  parent.append(node);
  return node;
}

describe('the rule index by element name', () => {
  it('gives for every element the rule turndown would try first', () => {
    const turndown = service();
    const rules = turndown.rules;
    const original = Object.getPrototypeOf(rules) as typeof rules;
    indexRulesByName(turndown);
    expect(rules.forNode).not.toBe(original.forNode);
    const pre = element('pre');
    const nodes = [
      element('p'), element('mark'), element('ins'), element('a'), element('a', { title: 't' }), element('a', { href: '/x' }),
      element('kbd'), element('span', { 'data-keep': '' }), element('script'), element('section'), element('h2'), element('pre'),
      element('code', {}, pre), element('code'), element('img'), element('custom-element'),
    ];
    const blank = element('b');
    (blank as unknown as { isBlank: boolean }).isBlank = true;
    for (const node of [...nodes, blank, ...nodes]) {
      const html = node as unknown as HTMLElement;
      expect(rules.forNode(html), node.localName).toBe(original.forNode.call(rules, html));
    }
  });
});
