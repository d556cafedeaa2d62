import type { AnyNode, Element as DomElement, ParentNode } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { flatText } from '../document.js';
import { parsedCopy } from '../parsed-copy.js';
import { findElements } from '../walk.js';
import { readabilityArticle } from './article.js';
import { buildPage, refillBody, type AttributeSet } from './dom.js';
import { chooseHeadline, type HeadlineSource } from './headline.js';
import { proseBlocks } from './fallback.js';
import { cleanArticle } from './postclean.js';
import { dropNoiseParagraphs } from './refine.js';
import { removeFurniture } from './preclean.js';

export type MainContentSource = 'article' | 'baseline' | 'page';

export interface MainContent {
  /** The nodes to put in place of the body's children. */
  nodes: AnyNode[];
  /** article: Readability's pick, cleaned; baseline: prose blocks of the page; page: the cleaned page. */
  source: MainContentSource;
}

/**
 * Readability is worth its cost on pages of ordinary shape; a page beyond these bounds (a hostile
 * or generated one) keeps its furniture-stripped body, which costs one linear pass.
 */
const READABILITY_BOUNDS = { elements: 20_000, depth: 120 };

/** An article shorter than this (characters) and than a third of the page's text is "too little". */
const MIN_ARTICLE_CHARS = 250;

function normalised(text: string): string {
  return text.replace(/\s+/g, ' ').trim().toLowerCase();
}

function chars(nodes: AnyNode[]): number {
  return nodes.reduce((sum, node) => sum + normalised(flatText(node)).length, 0);
}

/** The first element among `nodes` and under them that `take` accepts. */
function firstHeading(nodes: AnyNode[], take: (element: DomElement) => boolean): DomElement | undefined {
  for (const node of nodes) {
    if (node.type !== 'tag') continue;
    if (take(node)) return node;
    const [found] = findElements(node, take, () => true, 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * Readability keeps the headline out of its content, or keeps the page's h1 as an h2; the headline
 * belongs to the article as its h1 (`text`: the article's normalised text; `h1s`: the page's h1 texts).
 */
function withHeadline(article: Element, text: string, title: string, h1s: string[]): AnyNode[] {
  const headline = normalised(title);
  const elements = [article];
  const held = headline !== '' && text.includes(headline);
  if (headline !== '' && !held) {
    const h1 = article.ownerDocument.createElement('h1');
    h1.textContent = title;
    elements.unshift(h1);
  }
  const nodes = parsedCopy(elements) ?? parseDocument(elements.map((element) => element.outerHTML).join('')).children;
  if (held && h1s.some((h1) => normalised(h1) === headline)) {
    const demoted = firstHeading(nodes, (element) => element.name === 'h2' && normalised(flatText(element)) === headline);
    if (demoted) demoted.name = 'h1';
  }
  return nodes;
}

/**
 * The page's main content. `body` (parsed by htmlparser2) is first stripped of furniture; Mozilla
 * Readability then scores what is left and its pick loses its link lists and gets its headline
 * back. When it picks too little or nothing, the prose blocks of the page are taken instead; when
 * there are none, the cleaned page. `head` (title and meta tags) gives Readability the title.
 * `attributes`: 'read' when the answer is markdown or text, whose writers read only some attributes
 * (fewer attribute nodes to build), 'all' for html.
 */
export function selectMainContent(body: ParentNode, head: AnyNode[], headlines: HeadlineSource, attributes: AttributeSet): MainContent {
  const shape = removeFurniture(body);
  if (shape.elements > READABILITY_BOUNDS.elements || shape.depth > READABILITY_BOUNDS.depth) {
    return { nodes: [...body.children], source: 'page' };
  }
  const page = buildPage(head, body.children, attributes);
  const article = readabilityArticle(page, () => refillBody(page, body.children, attributes));
  let articleText = '';
  if (article) {
    cleanArticle(article.content);
    articleText = normalised(article.content.textContent ?? '');
    if (articleText.length >= MIN_ARTICLE_CHARS || articleText.length >= chars(body.children) / 3) {
      const headline = chooseHeadline(headlines, articleText, article.title);
      return { nodes: dropNoiseParagraphs(withHeadline(article.content, articleText, headline, headlines.h1s)), source: 'article' };
    }
  }
  const prose = proseBlocks(body);
  if (chars(prose) > articleText.length) return { nodes: prose, source: 'baseline' };
  if (article && articleText.length > 0) return { nodes: withHeadline(article.content, articleText, chooseHeadline(headlines, articleText, article.title), headlines.h1s), source: 'article' };
  return { nodes: [...body.children], source: 'page' };
}
