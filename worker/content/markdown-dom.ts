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

/**
 * The nodes as the parser meets their markup: outside tables, a table part's tags are dropped and
 * its content stays; a `p` whose child is a block (Readability makes such) ends at that block, the
 * rest follows it as siblings, and the `</p>` then left over makes an empty `p`.
 */
function parsedOrder(nodes: AnyNode[], context: Context, items: Item[] = []): Item[] {
  for (const node of nodes) {
    if (node.type === 'tag' && !context.table && TABLE_PARTS.has(node.name)) {
      parsedOrder(node.children, context, items);
      continue;
    }
    const block = node.type === 'tag' && node.name === 'p' && !context.p ? node.children.findIndex((child) => child.type === 'tag' && CLOSES_P.has(child.name)) : -1;
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

/** Appends copies of `nodes` to `parent` (named `parentName` in the parsed tree). */
function copyChildren(parent: DomElement, parentName: string, nodes: AnyNode[], context: Context): void {
  let text = '';
  let tbody: DomElement | null = null;
  let first = true;
  const flushText = (): void => {
    if (text === '') return;
    if (TABLE_CHILDREN.has(parentName) && !WHITESPACE_ONLY.test(text)) refuse();
    // The parser drops the newline that opens a `pre`.
    if (first && parentName === 'pre' && text.startsWith('\n')) text = text.slice(1);
    if (text !== '') (tbody ?? parent).append(new DomCharacterData(3, text));
    first = false;
    text = '';
  };
  for (const item of parsedOrder(nodes, context)) {
    if (item === EMPTY_P || 'cut' in item) {
      flushText();
      first = false;
      checkPlace('p', parentName, context);
      const paragraph = new DomElement('p', item === EMPTY_P ? {} : attributesOf(item.cut));
      (tbody ?? parent).append(paragraph);
      if (item !== EMPTY_P) copyChildren(paragraph, 'p', item.children, inner('p', context));
      continue;
    }
    const node = item;
    if (node.type === 'text') {
      text += normaliseNewlines(node.data);
      continue;
    }
    flushText();
    first = false;
    if (node.type === 'comment') {
      if (/-->|--!>|^-?>/.test(node.data)) refuse();
      (tbody ?? parent).append(new DomCharacterData(8, node.data));
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
    copyChildren(element, name, node.children, inner(name, context));
  }
  flushText();
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
