import { Element, Text, type AnyNode } from 'domhandler';
import { setChildren } from '../../walk.js';
import { isBox, type Box } from './box.js';

const PRESENTATIONAL = new Set(['align', 'background', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'hspace', 'rules', 'style', 'valign', 'vspace']);
const SIZED = new Set(['table', 'th', 'td', 'hr', 'pre']);

/** Copies the boxes back to parsed nodes, as Readability's clean-up leaves them (presentational attributes and `javascript:` links gone), onto `out`. */
export function copyInto(item: Box | Text, out: AnyNode[]): void {
  if (!isBox(item)) {
    out.push(new Text(item.data));
    return;
  }
  if (item.removed) return;
  const children: AnyNode[] = [];
  for (const child of item.items) copyInto(child, children);
  const attribs: Record<string, string> = {};
  if (item.source) {
    const sized = SIZED.has(item.name);
    for (const name in item.source.attribs) {
      if (PRESENTATIONAL.has(name) || (sized && (name === 'width' || name === 'height'))) continue;
      attribs[name] = item.source.attribs[name];
    }
  }
  if (item.name === 'a' && attribs.href?.startsWith('javascript:')) {
    if (item.items.length === 1 && !isBox(item.items[0])) out.push(new Text(item.items[0].data));
    else out.push(element('span', {}, children));
    return;
  }
  out.push(element(item.name, attribs, children));
}

export function element(name: string, attribs: Record<string, string>, children: AnyNode[]): Element {
  const made = new Element(name, attribs, []);
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
  for (let i = 0; i < parent.children.length; i += 1) {
    let node = parent.children[i];
    while (isNested(node)) {
      const elements = node.children.filter((child): child is Element => child.type === 'tag');
      const blank = node.children.every((child) => child.type !== 'text' || (child as Text).data.trim() === '');
      if (blank && elements.every((child) => child.name === 'br' || child.name === 'hr')) {
        parent.children.splice(i, 1);
        i -= 1;
        changed = true;
        break;
      }
      if (!blank || elements.length !== 1 || !isNested(elements[0])) break;
      const child = elements[0];
      child.attribs = { ...child.attribs, ...node.attribs };
      child.parent = parent;
      parent.children[i] = child;
      node = child;
      changed = true;
    }
    if (i >= 0 && parent.children[i] === node && node.type === 'tag') changed = simplifyNested(node as Element) || changed;
  }
  setChildren(parent, parent.children);
  return changed;
}
