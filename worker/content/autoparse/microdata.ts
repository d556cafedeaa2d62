import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { addProperty, propertyValue, tokens, type Properties } from './item-values.js';

export interface MicrodataItem {
  type: string[];
  id?: string;
  properties: Properties;
}

function childElements(element: Element): Element[] {
  return element.children.filter((child): child is Element => child.type === 'tag');
}

/** WHATWG microdata items as the W3C JSON shape: `{type, id?, properties: {name: [values]}}`. */
class MicrodataReader {
  private readonly visiting = new Set<Element>();

  constructor(private readonly $: CheerioAPI) {}

  item(element: Element): MicrodataItem {
    this.visiting.add(element);
    const properties: Properties = {};
    const roots = [...childElements(element)];
    for (const id of tokens(element.attribs.itemref)) {
      const referenced = this.$(`[id="${id.replace(/["\\]/g, '\\$&')}"]`).get(0);
      if (referenced?.type === 'tag') roots.push(referenced);
    }
    const pending = roots.reverse();
    while (pending.length > 0) {
      const node = pending.pop() as Element;
      const names = tokens(node.attribs.itemprop);
      const nested = node.attribs.itemscope !== undefined;
      if (names.length > 0) {
        const value = nested ? (this.visiting.has(node) ? 'ERROR' : this.item(node)) : propertyValue(node, false);
        addProperty(properties, names, value);
      }
      if (!nested) pending.push(...childElements(node).reverse());
    }
    this.visiting.delete(element);
    const result: MicrodataItem = { type: tokens(element.attribs.itemtype), properties };
    if (element.attribs.itemid) result.id = element.attribs.itemid;
    return result;
  }
}

export function readMicrodata($: CheerioAPI): MicrodataItem[] {
  const reader = new MicrodataReader($);
  return $('[itemscope]:not([itemprop])')
    .toArray()
    .filter((element): element is Element => element.type === 'tag')
    .map((element) => reader.item(element));
}
