import type { AnyNode } from 'domhandler';
import { parseHTML } from 'linkedom';

const ESCAPED = /[&<>\u00a0]/;

/** Elements whose text a serialiser writes as it is (dom-serializer's list). */
const RAW_TEXT = new Set(['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);

/**
 * Text in the shape linkedom parses it from serialised markup, which Readability was tuned on: each
 * character a serialiser escapes (& < > and the no-break space) is a text node of its own. Where it
 * is not, Readability trims and keeps other whitespace and boilerplate lines.
 */
function appendText(document: Document, parent: Node, text: string, raw: boolean): void {
  if (text === '') return;
  if (raw || !ESCAPED.test(text)) return void parent.appendChild(document.createTextNode(text));
  for (const piece of text.split(/([&<>\u00a0])/)) if (piece !== '') parent.appendChild(document.createTextNode(piece));
}

/**
 * The attributes Readability, the article's clean-up and the markdown and text writers read; on
 * the elements in ALL_ATTRIBUTES Readability reads every attribute (lazy images' URLs, videos).
 */
const READ_ATTRIBUTES = new Set([
  'id', 'class', 'style', 'hidden', 'aria-hidden', 'aria-modal', 'role', 'rel', 'itemprop', 'lang', 'dir',
  'href', 'title', 'src', 'srcset', 'data-src', 'poster', 'alt', 'width', 'height', 'colspan', 'rowspan', 'start',
  'data-lang', 'data-language', 'summary', 'datatable', 'type', 'name', 'property', 'content',
]);
const ALL_ATTRIBUTES = new Set(['img', 'picture', 'figure', 'source', 'video', 'audio', 'object', 'embed', 'iframe']);

/** Which attributes of a page a copy keeps: all (html output shows them) or the read ones. */
export type AttributeSet = 'all' | 'read';

/** Copies parsed (htmlparser2) nodes under `parent`, as linkedom would parse them from their markup. */
function copyNodes(document: Document, parent: Node, nodes: AnyNode[], attributes: AttributeSet, raw = false): void {
  let text = '';
  for (const node of nodes) {
    if (node.type === 'text') {
      text += node.data;
      continue;
    }
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    appendText(document, parent, text, raw);
    text = '';
    const element = parent.appendChild(document.createElement(node.name));
    // linkedom puts a set attribute first: set in reverse, they keep the page's order.
    const every = attributes === 'all' || ALL_ATTRIBUTES.has(node.name);
    const names = Object.keys(node.attribs).filter((name) => every || READ_ATTRIBUTES.has(name));
    for (let i = names.length - 1; i >= 0; i -= 1) element.setAttribute(names[i], node.attribs[names[i]]);
    copyNodes(document, element, node.children, attributes, RAW_TEXT.has(node.name));
  }
  appendText(document, parent, text, raw);
}

let page: Document | null = null;

/**
 * The thread's one linkedom document, emptied by each use: making a document costs linkedom about a
 * tenth of a small page's main-content pick, and each page is picked and copied out before the next
 * one starts (the pick is synchronous). Only its head and body ever hold a page; Readability leaves
 * its scores on the elements it weighed (`readability`, `_readabilityDataTable`), the page's html,
 * head and body among them, and those go too, or the next page would start from them.
 */
function emptyPage(): Document {
  page ??= parseHTML('<!DOCTYPE html><html><head></head><body></body></html>').document as unknown as Document;
  for (const element of [page.documentElement, page.head, page.body]) {
    for (const mark of Object.keys(element)) if (!LINKEDOM_OWN.has(mark)) Reflect.deleteProperty(element, mark);
  }
  return page;
}

/** Own properties linkedom gives its elements; any other was left by a reader of the page. */
const LINKEDOM_OWN = new Set(['ownerDocument', 'localName', 'nodeType', 'parentNode']);

/**
 * A standard DOM (linkedom) of a page built straight from its parsed head and body nodes: the
 * page is not serialised and parsed a second time. Depth is bounded by the caller.
 */
export function buildPage(head: AnyNode[], body: AnyNode[], attributes: AttributeSet): Document {
  const document = emptyPage();
  document.head.replaceChildren();
  copyNodes(document, document.head, head, 'all');
  refillBody(document, body, attributes);
  return document;
}

/** Replaces the children of the document's body by copies of `body`. */
export function refillBody(document: Document, body: AnyNode[], attributes: AttributeSet): void {
  document.body.replaceChildren();
  copyNodes(document, document.body, body, attributes);
}

/**
 * Elements under `root` whose name is in `names` (lower case), in document order: what
 * querySelectorAll of those names gives, by a walk instead of linkedom's selector engine (which
 * compiles the selector on every call). Names compare in lower case, as a selector's do (Readability
 * creates its elements as "DIV" and "P").
 */
export function descendantsNamed(root: Element, names: ReadonlySet<string>, first = false): Element[] {
  const found: Element[] = [];
  const visit = (parent: Element): boolean => {
    for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
      if (names.has(child.localName.toLowerCase())) {
        found.push(child);
        if (first) return true;
      }
      if (visit(child)) return true;
    }
    return false;
  };
  visit(root);
  return found;
}

/** querySelector of those names: whether `root` holds one of them. */
export function holdsNamed(root: Element, names: ReadonlySet<string>): boolean {
  return descendantsNamed(root, names, true).length > 0;
}

const LINK = new Set(['a']);

/** Whitespace-collapsed text length of an element. */
export function textLength(node: Node): number {
  return (node.textContent ?? '').replace(/\s+/g, ' ').trim().length;
}

/** Share of an element's text that sits inside links (0 when it has no text). */
export function linkDensity(element: Element): number {
  const total = textLength(element);
  if (total === 0) return 0;
  let linked = 0;
  for (const link of descendantsNamed(element, LINK)) linked += textLength(link);
  return Math.min(1, linked / total);
}

export function markerOf(element: Element): string {
  return `${element.getAttribute('id') ?? ''} ${element.getAttribute('class') ?? ''}`.trim();
}
