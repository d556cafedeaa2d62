import { Comment, Document, Element as ParsedElement, Text, type ChildNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';

/**
 * Parsed (htmlparser2) nodes copied from a standard DOM (linkedom's, which Readability picks the
 * article in): what parsing the nodes' markup would give, without serialising them and parsing
 * again, which cost about a twentieth of a small page's main-content pick.
 *
 * The copy must be the tree htmlparser2 builds from linkedom's markup, byte for byte in every
 * format. That holds for trees its parsing rules keep as they are; `parsedCopy` gives null for any
 * node they could close early, reopen or read as raw text (a `p` inside a `p`, a row outside a
 * table, `<script>`, `<svg>` ...), and the caller then takes the serialising road. What serialising
 * and parsing again do change on trees it keeps is done here too: names in lower case, neighbouring
 * texts joined, empty texts gone, an empty id, class or style attribute dropped (linkedom writes
 * none), entities in attribute values read as htmlparser2 reads them (linkedom escapes only `"` there).
 */

/** htmlparser2's rules: a start tag of the key closes an open element of these names right above it. */
const P = ['p'];
const FORM = ['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea'];
const CLOSED_BY = new Map<string, ReadonlySet<string>>(
  Object.entries({
    tr: ['tr', 'th', 'td'], th: ['th'], td: ['thead', 'th', 'td'], body: ['head', 'link', 'script'], li: ['li'],
    select: FORM, input: FORM, output: FORM, button: FORM, datalist: FORM, textarea: FORM,
    option: ['option'], optgroup: ['optgroup', 'option'], dd: ['dd', 'dt'], dt: ['dd', 'dt'], rt: ['rt', 'rp'], rp: ['rt', 'rp'],
    tbody: ['thead', 'tbody'], tfoot: ['thead', 'tbody'],
    ...Object.fromEntries(
      ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption',
        'figure', 'footer', 'form', 'header', 'hr', 'main', 'nav', 'ol', 'pre', 'section', 'table', 'ul'].map((name) => [name, P]),
    ),
  }).map(([name, closed]) => [name, new Set(closed)]),
);

/** Elements without end tag in htmlparser2's and linkedom's markup alike. */
const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'keygen', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * Raw text to either side, foreign content, document-level elements, and the names one side reads
 * as void and the other not: never copied.
 */
const REFUSED = new Set([
  'script', 'style', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript', 'plaintext', 'template', 'svg', 'math',
  'html', 'head', 'body', 'basefont', 'command', 'frame', 'isindex', 'menuitem',
]);

const NAME = /^[a-zA-Z][^\s/>\0]*$/;
const ATTRIBUTE_NAME = /^[^\sA-Z"'<>/=\0]+$/;
/** A comment whose markup would end early or not at all. */
const BROKEN_COMMENT = /-->|--!>|^-?>|-$|\0/;
const DROPPED_WHEN_EMPTY = new Set(['id', 'class', 'style']);

class Refused extends Error {}

/** An attribute's value as htmlparser2 reads it from `name="value"` with only `"` escaped. */
function readValue(value: string): string {
  if (!value.includes('&')) return value;
  const element = parseDocument(`<a v="${value.replace(/"/g, '&quot;')}">`).children[0] as ParsedElement;
  return element.attribs.v;
}

function attributesOf(element: Element): Record<string, string> {
  const attributes: Record<string, string> = {};
  // Most elements of a pick have none; linkedom makes a list and a proxy over it for `attributes`.
  if (!element.hasAttributes()) return attributes;
  for (const { name, value } of Array.from(element.attributes)) {
    if (!ATTRIBUTE_NAME.test(name) || name === '__proto__' || Object.hasOwn(attributes, name)) throw new Refused();
    if (value === '' && DROPPED_WHEN_EMPTY.has(name)) continue;
    attributes[name] = readValue(value);
  }
  return attributes;
}

/** The child nodes of `element`, by its sibling links (linkedom makes a list for each read of `childNodes`). */
function childNodesOf(element: Element): Node[] {
  const nodes: Node[] = [];
  for (let child = element.firstChild; child !== null; child = child.nextSibling) nodes.push(child);
  return nodes;
}

/** Copies `nodes` (the children of an element named `parent`, or top-level nodes when null). */
function copyNodes(nodes: readonly Node[], parent: string | null, plainMarkup: unknown): ChildNode[] {
  const copies: ChildNode[] = [];
  let text: Text | null = null;
  for (const node of nodes) {
    if (node.nodeType === 3) {
      const data = (node as CharacterData).data;
      if (data === '') continue;
      if (text) text.data += data;
      else copies.push((text = new Text(data)));
      continue;
    }
    text = null;
    if (node.nodeType === 8) {
      const data = (node as CharacterData).data;
      if (BROKEN_COMMENT.test(data)) throw new Refused();
      copies.push(new Comment(data));
      continue;
    }
    if (node.nodeType !== 1) throw new Refused();
    const element = node as Element;
    const name = element.localName.toLowerCase();
    // An element that writes its own markup (linkedom's script, style, template, svg ...) is not copied.
    if (!NAME.test(element.localName) || REFUSED.has(name) || element.toString !== plainMarkup) throw new Refused();
    if (parent !== null && CLOSED_BY.get(name)?.has(parent)) throw new Refused();
    const children = childNodesOf(element);
    if (VOID.has(name) && children.length > 0) throw new Refused();
    copies.push(new ParsedElement(name, attributesOf(element), copyNodes(children, name, plainMarkup)));
  }
  return copies;
}

/** Links each node to its parent and siblings, as the parser's handler does. */
function link(parent: Document | ParsedElement): void {
  parent.children.forEach((child, index) => {
    child.parent = parent;
    child.prev = parent.children[index - 1] ?? null;
    child.next = parent.children[index + 1] ?? null;
    if (child instanceof ParsedElement) link(child);
  });
}

/**
 * The nodes htmlparser2 parses from the markup of `elements` written one after the other (each
 * `outerHTML`), under a Document of their own; null when its parsing rules could build another tree.
 */
export function parsedCopy(elements: Element[]): ChildNode[] | null {
  if (elements.length === 0) return [];
  try {
    const document = new Document(copyNodes(elements, null, elements[0].ownerDocument.createElement('div').toString));
    link(document);
    return document.children;
  } catch (error) {
    if (error instanceof Refused) return null;
    throw error;
  }
}
