import type { AnyNode, Element } from 'domhandler';
import { DomCharacterData, DomElement } from './turndown-dom.js';
import { CLOSES_P, checkPlace, inner, OUTSIDE, refuse, Refused, TABLE_CHILDREN, TABLE_PARTS, TABLE_SECTIONS, VOID, WHITESPACE_ONLY, type Context } from './domino-rules.js';

/**
 * The DOM turndown walks, built straight from the parsed (htmlparser2) nodes: the selected content
 * is not serialised and parsed a second time (by domino, turndown's parser), which cost about half
 * of the markdown writer's time.
 *
 * It must be the tree domino would build from the serialised nodes, so that the markdown stays the
 * same byte for byte. That holds for trees the HTML parsing rules would not rebuild; `markdownDom`
 * gives null for any node those rules could move, close, rename or read as raw text (a block inside
 * an open `p`, a link inside a link, a stray table part, `<svg>`, `<select>` ...: domino-rules.ts), and the caller
 * then takes the serialising road. The checks are deliberately wider than the rules: a tree they
 * refuse only costs the old price. What the parser does change on trees it keeps is done here too:
 * CR and CRLF become LF, the newline right after `<pre>` goes, neighbouring text nodes are one, a
 * `tr` straight under `table` gets its `tbody`.
 */

function normaliseNewlines(value: string): string {
  if (value.includes('\0')) refuse();
  return value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value;
}

/** The element's attributes as the parser would read them; the element's own object where that is the same (turndown only reads them). */
function attributesOf(element: Element): Record<string, string> {
  let attributes = element.attribs;
  for (const name in element.attribs) {
    const value = normaliseNewlines(element.attribs[name]);
    if (value !== element.attribs[name]) {
      if (attributes === element.attribs) attributes = { ...element.attribs };
      attributes[name] = value;
    }
  }
  // turndown's GFM task-list rule reads `type` and `checked` as DOM properties, which only some elements reflect.
  if ((attributes.type ?? '').toLowerCase().includes('checkbox') || (attributes.role ?? '').toLowerCase().includes('checkbox')) refuse();
  return attributes;
}

/** A `p` cut short by a block that closes it, and the empty `p` its end tag then makes. */
interface CutParagraph {
  cut: Element;
  children: AnyNode[];
}
const EMPTY_P = 'empty p';
type Item = AnyNode | CutParagraph | typeof EMPTY_P;

const MAX_NAMES_KEPT = 512;
/** One context object per combination of flags (at most 512): contexts are never changed. */
const contextsByFlags = new Map<string, Context>();
/** For each of those, the context its children get, by the element's name. */
const innerContexts = new Map<Context, Map<string, Context>>();

function sameFlagsKept(context: Context): Context {
  const flags = JSON.stringify(context);
  const kept = contextsByFlags.get(flags);
  if (kept) return kept;
  contextsByFlags.set(flags, context);
  return context;
}

/**
 * domino-rules' `inner`, the same object each time for a context and name: a page's thousands of
 * elements then make no context objects of their own.
 */
function innerContext(name: string, context: Context): Context {
  let byName = innerContexts.get(context);
  if (!byName) innerContexts.set(context, (byName = new Map()));
  let found = byName.get(name);
  if (!found) {
    // The converter lives as long as its thread: pages of made-up element names must not grow this without end.
    if (byName.size >= MAX_NAMES_KEPT) byName.clear();
    byName.set(name, (found = sameFlagsKept(inner(name, context))));
  }
  return found;
}

/** Whether the parser meets `nodes` in another order than their own (see parsedOrder). */
function needsParsedOrder(nodes: readonly AnyNode[], context: Context): boolean {
  for (const node of nodes) {
    if (node.type !== 'tag') continue;
    if (!context.table && TABLE_PARTS.has(node.name)) return true;
    if (node.name === 'p' && !context.p && blockChildAt(node) >= 0) return true;
  }
  return false;
}

function blockChildAt(paragraph: Element): number {
  const children = paragraph.children;
  for (let i = 0; i < children.length; i++) {
    const child = children[i];
    if (child.type === 'tag' && CLOSES_P.has(child.name)) return i;
  }
  return -1;
}

/**
 * The nodes as the parser meets their markup: outside tables, a table part's tags are dropped and
 * its content stays; a `p` whose child is a block (Readability makes such) ends at that block, the
 * rest follows it as siblings, and the `</p>` then left over makes an empty `p`.
 */
function parsedOrder(nodes: readonly AnyNode[], context: Context, items: Item[] = []): Item[] {
  for (const node of nodes) {
    if (node.type === 'tag' && !context.table && TABLE_PARTS.has(node.name)) {
      parsedOrder(node.children, context, items);
      continue;
    }
    const block = node.type === 'tag' && node.name === 'p' && !context.p ? blockChildAt(node) : -1;
    if (block < 0) {
      items.push(node);
      continue;
    }
    const paragraph = node as Element;
    items.push({ cut: paragraph, children: paragraph.children.slice(0, block) });
    parsedOrder(paragraph.children.slice(block), context, items);
    items.push(EMPTY_P);
  }
  return items;
}

/** Appends the text gathered from neighbouring text nodes (`first`: nothing came before it in the parent). */
function appendText(parent: DomElement, parentName: string, text: string, first: boolean): void {
  if (TABLE_CHILDREN.has(parentName) && !WHITESPACE_ONLY.test(text)) refuse();
  // The parser drops the newline that opens a `pre`.
  if (first && parentName === 'pre' && text.startsWith('\n')) text = text.slice(1);
  if (text !== '') parent.append(new DomCharacterData(text));
}

/** Appends copies of `nodes` to `parent` (named `parentName` in the parsed tree). */
function copyChildren(parent: DomElement, parentName: string, nodes: readonly AnyNode[], context: Context): void {
  let text = '';
  let tbody: DomElement | null = null;
  let first = true;
  for (const item of needsParsedOrder(nodes, context) ? parsedOrder(nodes, context) : nodes) {
    if (item !== EMPTY_P && 'type' in item && item.type === 'text') {
      text += normaliseNewlines(item.data);
      continue;
    }
    if (text !== '') appendText(tbody ?? parent, parentName, text, first);
    text = '';
    first = false;
    if (item === EMPTY_P || 'cut' in item) {
      checkPlace('p', parentName, context);
      const paragraph = new DomElement('p', item === EMPTY_P ? {} : attributesOf(item.cut));
      (tbody ?? parent).append(paragraph);
      if (item !== EMPTY_P) copyChildren(paragraph, 'p', item.children, innerContext('p', context));
      continue;
    }
    const node = item;
    // turndown drops comments before it reads the tree; one only parts the text around it, as the parser's would.
    if (node.type === 'comment') {
      if (/-->|--!>|^-?>/.test(node.data)) refuse();
      continue;
    }
    if (node.type !== 'tag') refuse();
    const name = node.name;
    checkPlace(name, parentName, context);
    if (VOID.has(name) && node.children.length > 0) refuse();
    // A row straight under the table goes into a tbody of the parser's making, with what follows it up to the next section.
    if (parentName === 'table' && TABLE_SECTIONS.has(name)) tbody = null;
    else if (parentName === 'table' && name === 'tr' && !tbody) {
      tbody = new DomElement('tbody', {});
      parent.append(tbody);
    }
    const element = new DomElement(name, attributesOf(node));
    (tbody ?? parent).append(element);
    copyChildren(element, name, node.children, innerContext(name, context));
  }
  if (text !== '') appendText(tbody ?? parent, parentName, text, first);
}

/**
 * turndown's root element over copies of `nodes`, as turndown would build it from their markup, or
 * null when the HTML parsing rules could build another tree from that markup.
 */
export function markdownDom(nodes: AnyNode[]): HTMLElement | null {
  const root = new DomElement('x-turndown', { id: 'turndown-root' });
  try {
    copyChildren(root, 'x-turndown', nodes, OUTSIDE);
  } catch (error) {
    if (error instanceof Refused) return null;
    throw error;
  }
  return root as unknown as HTMLElement;
}
