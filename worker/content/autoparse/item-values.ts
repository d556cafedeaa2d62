import type { Element } from 'domhandler';
import { flatText } from '../document.js';
import { collapseWhitespace } from '../whitespace.js';

const SRC_ELEMENTS = new Set(['audio', 'embed', 'iframe', 'img', 'source', 'track', 'video']);
const HREF_ELEMENTS = new Set(['a', 'area', 'link']);

/** The value of a microdata or RDFa property element (WHATWG microdata "property value" rules). */
export function propertyValue(element: Element, rdfa: boolean): string {
  const attribs = element.attribs;
  // schema.org markup puts machine values in `content` on any element; Google reads them too.
  if (attribs.content !== undefined) return attribs.content;
  if (rdfa && attribs.resource !== undefined) return attribs.resource;
  const name = element.name;
  if (name === 'meta') return attribs.content ?? '';
  if (SRC_ELEMENTS.has(name)) return attribs.src ?? '';
  if (HREF_ELEMENTS.has(name)) return attribs.href ?? '';
  if (name === 'object') return attribs.data ?? '';
  if ((name === 'data' || name === 'meter') && attribs.value !== undefined) return attribs.value;
  if (name === 'time' && attribs.datetime !== undefined) return attribs.datetime;
  return collapseWhitespace(flatText(element));
}

export function tokens(value: string | undefined): string[] {
  return value ? value.trim().split(/\s+/).filter((token) => token !== '') : [];
}

export type Properties = Record<string, unknown[]>;

export function addProperty(properties: Properties, names: string[], value: unknown): void {
  for (const name of names) (properties[name] ??= []).push(value);
}
