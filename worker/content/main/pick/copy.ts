import { Element, Text, type AnyNode } from 'domhandler';
import { setChildren } from '../../walk.js';
import { isBox, type Box } from './box.js';
import { isBlank } from './text-span.js';

const PRESENTATIONAL = new Set(['align', 'background', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'hspace', 'rules', 'style', 'valign', 'vspace']);
const SIZED = new Set(['table', 'th', 'td', 'hr', 'pre']);

/** The attributes Readability's clean-up leaves: the element's own object when none goes (the page is not changed after the pick). */
function keptAttributes(source: Element, sized: boolean): Record<string, string> {
  let any = false;
  for (const name in source.attribs) any ||= isDropped(name, sized);
  if (!any) return source.attribs;
  const kept: Record<string, string> = {};
  for (const name in source.attribs) if (!isDropped(name, sized)) kept[name] = source.attribs[name];
  return kept;
}

function isDropped(attribute: string, sized: boolean): boolean {
  return PRESENTATIONAL.has(attribute) || (sized && (attribute === 'width' || attribute === 'height'));
}

/**
 * Copies the live boxes among `items` back to parsed nodes, as Readability's clean-up leaves them
 * (presentational attributes and `javascript:` links gone). The copies wait on one stack, and each
 * element takes its children as an exact-size slice of it: arrays grown by push are mostly spare room.
 */
export function copyItems(items: Array<Box | Text>): AnyNode[] {
  const stack: AnyNode[] = [];
  let top = 0;
  const copyAll = (all: Array<Box | Text>): AnyNode[] => {
    const start = top;
    for (const item of all) {
      if (isBox(item) && item.removed) continue;
      const copy = copyOf(item);
      stack[top] = copy;
      top += 1;
    }
    const copies = stack.slice(start, top);
    top = start;
    return copies;
  };
  const copyOf = (item: Box | Text): AnyNode => {
    if (!isBox(item)) return new Text(item.data);
    const children = copyAll(item.items);
    const attribs = item.source ? keptAttributes(item.source, SIZED.has(item.name)) : {};
    if (item.name === 'a' && attribs.href?.startsWith('javascript:')) {
      return item.items.length === 1 && !isBox(item.items[0]) ? new Text(item.items[0].data) : element('span', {}, children);
    }
    return element(item.name, attribs, children);
  };
  return copyAll(items);
}

export function element(name: string, attribs: Record<string, string>, children: AnyNode[]): Element {
  const made = new Element(name, attribs, children);
  setChildren(made, children);
  return made;
}

function isNested(node: AnyNode): node is Element {
  return node.type === 'tag' && (node.name === 'div' || node.name === 'section') && !(node.attribs.id ?? '').startsWith('readability');
}

/**
 * Readability's last pass over its article (_simplifyNestedElements): an empty div or section (blank
 * text, nothing but <br> and <hr>) goes, and one holding a single div or section and no words is that
 * child, with its attributes. Whether it changed anything (blank text may have gone with it).
 */
export function simplifyNested(parent: Element): boolean {
  let changed = false;
  let changedHere = false;
  for (let i = 0; i < parent.children.length; i += 1) {
    let node = parent.children[i];
    while (isNested(node)) {
      const elements = node.children.filter((child): child is Element => child.type === 'tag');
      const blank = node.children.every((child) => child.type !== 'text' || isBlank((child as Text).data));
      if (blank && elements.every((child) => child.name === 'br' || child.name === 'hr')) {
        parent.children.splice(i, 1);
        i -= 1;
        changed = changedHere = true;
        break;
      }
      if (!blank || elements.length !== 1 || !isNested(elements[0])) break;
      const child = elements[0];
      child.attribs = { ...child.attribs, ...node.attribs };
      child.parent = parent;
      parent.children[i] = child;
      node = child;
      changed = changedHere = true;
    }
    if (i >= 0 && parent.children[i] === node && node.type === 'tag') changed = simplifyNested(node as Element) || changed;
  }
  if (changedHere) setChildren(parent, parent.children);
  return changed;
}
