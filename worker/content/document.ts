import { load, type CheerioAPI } from 'cheerio';
import { parseDocument } from 'htmlparser2';
import { Text, type AnyNode, type Document, type Element, type ParentNode } from 'domhandler';
import { CONTENT_LIMITS } from './content-limits.js';
import { isElement } from './walk.js';

export interface LoadedDocument {
  document: Document;
  /** cheerio over `document`, made on first use: markdown and text of a page need none (its making cost a twentieth of a small page's conversion). */
  readonly $: CheerioAPI;
  /** `<base href>` resolved against the final URL, else the final URL. */
  baseUrl: string;
  warnings: string[];
}

/** Text of a subtree without recursion (domutils' textContent recurses and would overflow here). */
export function flatText(root: AnyNode): string {
  if (root.type === 'text') return (root as Text).data;
  // Most elements asked (headings, titles, short paragraphs) hold one text node.
  const children = 'children' in root ? (root as ParentNode).children : [];
  if (children.length === 1 && children[0].type === 'text') return (children[0] as Text).data;
  const parts: string[] = [];
  const stack: AnyNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'text') parts.push((node as Text).data);
    else if ('children' in node) {
      const children = (node as ParentNode).children;
      for (let i = children.length - 1; i >= 0; i -= 1) stack.push(children[i]);
    }
  }
  return parts.join('');
}

/** Replaces the children of `node` by their text when it has elements among them; says whether it did. */
function flattenToText(node: ParentNode): boolean {
  if (!node.children.some(isElement)) return false;
  const text = new Text(flatText(node));
  text.parent = node;
  node.children = [text];
  return true;
}

/**
 * One walk over the parsed page: the children of every element at maxDepth are replaced by their
 * text, so later recursion stays shallow; the elements `take` holds for, of those left, come back
 * in document order.
 */
function flattenDeepNestingAndFind(root: ParentNode, take: (element: Element) => boolean): { flattened: boolean; found: Element[] } {
  const found: Element[] = [];
  let flattened = false;
  const nodes: ParentNode[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop() as ParentNode;
    const depth = depths.pop() as number;
    if (isElement(node) && take(node)) found.push(node);
    if (depth >= CONTENT_LIMITS.maxDepth) {
      if (flattenToText(node)) flattened = true;
      continue;
    }
    for (let i = node.children.length - 1; i >= 0; i -= 1) {
      const child = node.children[i];
      if (isElement(child)) {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return { flattened, found };
}

function resolveBase(base: Element | undefined, finalUrl: string): string {
  const href = base?.attribs.href;
  if (!href) return finalUrl;
  try {
    return new URL(href.trim(), finalUrl).href;
  } catch {
    return finalUrl;
  }
}

/**
 * An http(s) URL with its `//`: the URL parser leaves the base unread for it, so it is parsed without
 * one, at about half the cost (most URLs of real pages are written this way).
 */
const HTTP_WITH_AUTHORITY = /^https?:\/\//i;

export function absoluteUrl(value: string | undefined, baseUrl: string): string | null {
  if (value === undefined) return null;
  const trimmed = value.trim();
  if (trimmed === '') return null;
  try {
    return (HTTP_WITH_AUTHORITY.test(trimmed) ? new URL(trimmed) : new URL(trimmed, baseUrl)).href;
  } catch {
    return null;
  }
}

/** The URL-bearing attributes of each element name. */
const URL_ATTRIBUTES = new Map<string, string[]>([
  ['a', ['href']], ['area', ['href']], ['link', ['href']],
  ['img', ['src', 'srcset']], ['source', ['src', 'srcset']], ['video', ['src', 'poster']], ['audio', ['src']],
  ['iframe', ['src']], ['embed', ['src']], ['track', ['src']],
  ['form', ['action']],
  ['blockquote', ['cite']], ['q', ['cite']], ['del', ['cite']], ['ins', ['cite']],
]);

function absolutiseSrcset(srcset: string, baseUrl: string): string {
  return srcset
    .split(',')
    .map((candidate) => {
      const [url, ...descriptor] = candidate.trim().split(/\s+/);
      const absolute = absoluteUrl(url, baseUrl);
      return absolute ? [absolute, ...descriptor].join(' ') : candidate.trim();
    })
    .join(', ');
}

/** Scripts, inline data, mail and phone addresses, and fragments stay as written. */
const KEPT_AS_WRITTEN = /^\s*(?:(?:javascript|data|mailto|tel):|#)/i;

/** Makes every URL-bearing attribute absolute, so each output format and extract rule sees the same URLs. */
function absolutiseUrls(elements: Element[], baseUrl: string): void {
  for (const element of elements) {
    for (const attribute of URL_ATTRIBUTES.get(element.name) ?? []) {
      const value = element.attribs[attribute];
      if (value === undefined) continue;
      if (attribute === 'srcset') {
        element.attribs.srcset = absolutiseSrcset(value, baseUrl);
        continue;
      }
      if (KEPT_AS_WRITTEN.test(value)) continue;
      const absolute = absoluteUrl(value, baseUrl);
      if (absolute) element.attribs[attribute] = absolute;
    }
  }
}

/** A `<title>` closed beyond this many characters, or never, is taken as unclosed. */
const MAX_TITLE_CHARS = 2_000;

/**
 * An unclosed (or mistyped) `</title>` makes the rest of the page title text. Such a title is
 * closed at its first tag, so the page's markup is read as markup.
 */
function closeRunawayTitle(html: string): string {
  const open = /<title\b[^>]*>/i.exec(html.slice(0, 100_000));
  if (!open) return html;
  const start = open.index + open[0].length;
  const close = html.slice(start, start + MAX_TITLE_CHARS).search(/<\/title\s*>/i);
  if (close >= 0) return html;
  const firstTag = html.slice(start, start + MAX_TITLE_CHARS).indexOf('<');
  if (firstTag < 0) return html;
  return `${html.slice(0, start + firstTag)}</title>${html.slice(start + firstTag)}`;
}

/** `absoluteUrls: false` leaves URL-bearing attributes as written, for an answer that shows and reads none of them. */
export function loadDocument(html: string, finalUrl: string, { absoluteUrls = true } = {}): LoadedDocument {
  const warnings: string[] = [];
  let source = html;
  if (source.length > CONTENT_LIMITS.maxHtmlChars) {
    source = source.slice(0, CONTENT_LIMITS.maxHtmlChars);
    warnings.push(`CONTENT_TRUNCATED: only the first ${CONTENT_LIMITS.maxHtmlChars} characters of HTML were processed`);
  }
  const dom = parseDocument(closeRunawayTitle(source), { decodeEntities: true });
  const { flattened, found: elements } = flattenDeepNestingAndFind(dom, (element) => URL_ATTRIBUTES.has(element.name) || (element.name === 'base' && element.attribs.href !== undefined));
  if (flattened) warnings.push(`CONTENT_FLATTENED: markup nested deeper than ${CONTENT_LIMITS.maxDepth} levels was reduced to text`);
  const baseUrl = resolveBase(elements.find((element) => element.name === 'base'), finalUrl);
  if (absoluteUrls) absolutiseUrls(elements, baseUrl);
  let $: CheerioAPI | null = null;
  return {
    document: dom,
    get $() {
      return ($ ??= load(dom));
    },
    baseUrl,
    warnings,
  };
}
