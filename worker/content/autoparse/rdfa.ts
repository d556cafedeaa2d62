import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { addProperty, propertyValue, tokens, type Properties } from './item-values.js';

export interface RdfaItem {
  vocab?: string;
  type: string[];
  resource?: string;
  properties: Properties;
}

function childElements(element: Element): Element[] {
  return element.children.filter((child): child is Element => child.type === 'tag');
}

function vocabOf(element: Element): string | undefined {
  for (let node: Element | null = element; node; node = node.parent?.type === 'tag' ? node.parent : null) {
    if (node.attribs.vocab !== undefined) return node.attribs.vocab;
  }
  return undefined;
}

/** RDFa Lite: one item per `typeof`; its `property` descendants up to the next nested `typeof`. */
function readItem(element: Element): RdfaItem {
  const properties: Properties = {};
  const pending = childElements(element).reverse();
  while (pending.length > 0) {
    const node = pending.pop() as Element;
    const names = tokens(node.attribs.property);
    const nested = node.attribs.typeof !== undefined;
    if (names.length > 0) addProperty(properties, names, nested ? readItem(node) : propertyValue(node, true));
    if (!nested) pending.push(...childElements(node).reverse());
  }
  const item: RdfaItem = { type: tokens(element.attribs.typeof), properties };
  const vocab = vocabOf(element);
  if (vocab) item.vocab = vocab;
  const resource = element.attribs.resource ?? element.attribs.about;
  if (resource) item.resource = resource;
  return item;
}

export function readRdfa($: CheerioAPI): RdfaItem[] {
  return $('[typeof]:not([property])')
    .toArray()
    .filter((element): element is Element => element.type === 'tag')
    .map(readItem);
}
