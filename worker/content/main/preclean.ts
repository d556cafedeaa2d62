import type { AnyNode, Element, ParentNode } from 'domhandler';
import { FURNITURE_ROLES, FURNITURE_TAGS, HIDDEN_STYLE, STRONG_FURNITURE_WORDS } from './patterns.js';
import { trimmedLength } from './pick/text-span.js';

/** Search, login and sign-up forms are small; a form wrapping the whole page (ASP.NET) is layout. */
const SMALL_FORM_CHARS = 300;
/** A wrapper carrying this share of the page's text is layout, not furniture, whatever its name. */
const LAYOUT_SHARE = 0.4;

const CONTENT_TAGS = new Set(['article', 'main', 'h1']);
const NEVER_TEXT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'base', 'object', 'embed', 'canvas', 'iframe', 'frame', 'frameset', 'svg', 'math']);

interface Stats {
  chars: number;
  /** Holds a radio button or check box (a poll or a survey, when it is a form). */
  holdsChoice: boolean;
  /** Holds article, main, [role=main], [itemprop=articleBody] or h1: never furniture. */
  holdsContent: boolean;
}

function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

function isChoice(element: Element): boolean {
  const type = element.attribs.type?.toLowerCase();
  return element.name === 'input' && (type === 'radio' || type === 'checkbox');
}

function isContentMarker(element: Element): boolean {
  return CONTENT_TAGS.has(element.name) || element.attribs.role === 'main' || element.attribs.itemprop === 'articleBody';
}

export interface PageShape {
  elements: number;
  depth: number;
}

/** Text length and content markers of every element, in one pass (no quadratic re-reading). */
function measure(root: ParentNode): { stats: Map<Element, Stats>; shape: PageShape } {
  const stats = new Map<Element, Stats>();
  const shape: PageShape = { elements: 0, depth: 0 };
  const visit = (element: Element, depth: number): Stats => {
    const own: Stats = { chars: 0, holdsContent: false, holdsChoice: isChoice(element) };
    shape.elements += 1;
    shape.depth = Math.max(shape.depth, depth);
    if (!NEVER_TEXT.has(element.name)) {
      for (const child of element.children) {
        if (child.type === 'text') own.chars += trimmedLength(child.data);
        if (!isElement(child)) continue;
        const sub = visit(child, depth + 1);
        own.chars += sub.chars;
        own.holdsContent ||= sub.holdsContent || isContentMarker(child);
        own.holdsChoice ||= sub.holdsChoice;
      }
    }
    stats.set(element, own);
    return own;
  };
  for (const child of root.children) if (isElement(child)) visit(child, 1);
  return { stats, shape };
}

/** A small form (search, login), or a poll or survey: its choices are answers to pick, not the article. */
function isFormFurniture(own: Stats | undefined): boolean {
  if (!own) return false;
  return own.chars < SMALL_FORM_CHARS || own.holdsChoice;
}

function isNeverText(element: Element): boolean {
  return NEVER_TEXT.has(element.name) && !(element.name === 'script' && element.attribs.type === 'application/ld+json');
}

/** cheerio-free matching of the furniture tags and roles (plain names and attribute tests). */
const FURNITURE_TAG_SET = new Set(FURNITURE_TAGS.split(',').map((tag) => tag.trim()));
const FURNITURE_ROLE_SET = new Set(Array.from(FURNITURE_ROLES.matchAll(/role="([^"]+)"/g), (match) => match[1]));

type Verdict = 'content' | 'furniture' | 'strong';

function verdict(element: Element, insideArticle: boolean): Verdict {
  const { attribs, name } = element;
  if (name === 'main' || name === 'article') return 'content';
  // Weaker names (nav, menu, sidebar, widget, tags, footer...) are not trusted: blog platforms put
  // the post itself in a "widget" and tag it "tag-x"; Readability's own scoring weighs those names.
  if ((attribs.id || attribs.class) && STRONG_FURNITURE_WORDS.test(`${attribs.id ?? ''} ${attribs.class ?? ''}`)) return 'strong';
  return looksLikeFurniture(element, insideArticle) ? 'furniture' : 'content';
}

/** Furniture by its tag, role or hiding. */
function looksLikeFurniture(element: Element, insideArticle: boolean): boolean {
  const { attribs, name } = element;
  if (FURNITURE_TAG_SET.has(name)) return true;
  if ((name === 'header' || name === 'footer') && !insideArticle) return true;
  if (attribs.role && FURNITURE_ROLE_SET.has(attribs.role)) return true;
  if (attribs['aria-hidden'] === 'true' || 'hidden' in attribs) return true;
  return attribs.style !== undefined && HIDDEN_STYLE.test(attribs.style);
}

/**
 * Drops page furniture before scoring, on the parsed page: never-text elements, navigation,
 * asides, small forms, polls and widgets, comment sections, related/recommended blocks, share bars,
 * cookie and newsletter banners, hidden elements; page headers and footers outside the article.
 * A candidate that holds the article (article, main, h1) or most of the page's text stays.
 */
export function removeFurniture(body: ParentNode): PageShape {
  const { stats, shape } = measure(body);
  const pageChars = body.children.reduce((sum, child) => sum + (isElement(child) ? (stats.get(child)?.chars ?? 0) : 0), 0);
  const layout = (element: Element): boolean => {
    const own = stats.get(element);
    return own !== undefined && (own.holdsContent || own.chars > pageChars * LAYOUT_SHARE);
  };
  const goes = (child: AnyNode, insideArticle: boolean): boolean => {
    if (child.type === 'comment' || child.type === 'directive') return true;
    if (!isElement(child)) return false;
    if (isNeverText(child)) return true;
    if (child.name === 'form' && isFormFurniture(stats.get(child)) && !layout(child)) return true;
    const kind = verdict(child, insideArticle);
    // A comment section may carry most of a page's text; only the article's own markers guard it.
    if (kind === 'strong' && !stats.get(child)?.holdsContent) return true;
    return kind === 'furniture' && !layout(child);
  };
  const prune = (parent: ParentNode, insideArticle: boolean): void => {
    // Made at the first removal: most parents lose no child.
    let kept: AnyNode[] | null = null;
    for (let i = 0; i < parent.children.length; i += 1) {
      const child = parent.children[i];
      if (goes(child, insideArticle)) {
        kept ??= parent.children.slice(0, i);
        continue;
      }
      kept?.push(child);
      if (isElement(child)) prune(child, insideArticle || isContentMarker(child));
    }
    if (kept) {
      parent.children = kept;
      kept.forEach((child, index) => {
        child.prev = kept[index - 1] ?? null;
        child.next = kept[index + 1] ?? null;
      });
    }
  };
  prune(body, false);
  return shape;
}
