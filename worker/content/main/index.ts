import { Text, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { flatText } from '../document.js';
import { findElements } from '../walk.js';
import { chooseHeadline, type HeadlineSource } from './headline.js';
import { proseBlocks } from './fallback.js';
import { removeDecorativeImages } from './postclean.js';
import { dropNoiseParagraphs } from './refine.js';
import { removeFurniture } from './preclean.js';
import { element } from './pick/copy.js';
import { scoredArticle } from './pick/index.js';
import { collapseWhitespace } from '../whitespace.js';

export type MainContentSource = 'article' | 'baseline' | 'page';

export interface MainContent {
  /** The nodes to put in place of the body's children. */
  nodes: AnyNode[];
  /** article: the scored pick, cleaned; baseline: prose blocks of the page; page: the cleaned page. */
  source: MainContentSource;
}

/**
 * The scoring is worth its cost on pages of ordinary shape; a page beyond these bounds (a hostile
 * or generated one) keeps its furniture-stripped body, which costs one linear pass.
 */
const SCORING_BOUNDS = { elements: 20_000, depth: 120 };

/** An article shorter than this (characters) and than a third of the page's text is "too little". */
const MIN_ARTICLE_CHARS = 250;

function normalised(text: string): string {
  return collapseWhitespace(text).toLowerCase();
}

function chars(nodes: AnyNode[]): number {
  return nodes.reduce((sum, node) => sum + normalised(flatText(node)).length, 0);
}

/** The first element among `nodes` and under them that `take` accepts. */
function firstHeading(nodes: AnyNode[], take: (element: Element) => boolean): Element | undefined {
  for (const node of nodes) {
    if (node.type !== 'tag') continue;
    if (take(node)) return node;
    const [found] = findElements(node, take, () => true, 1);
    if (found) return found;
  }
  return undefined;
}

/** The title meta tags give (Readability's order of names), and whether they name the author. */
const TITLE_KEYS = ['dc:title', 'dcterm:title', 'og:title', 'weibo:article:title', 'weibo:webpage:title', 'title', 'twitter:title', 'parsely-title'];
const AUTHOR_KEYS = ['dc:creator', 'dcterm:creator', 'author', 'parsely-author'];
const META_PROPERTY = /\s*(article|dc|dcterm|og|twitter)\s*:\s*(author|creator|description|published_time|title|site_name)\s*/i;
const META_NAME = /^\s*(?:(dc|dcterm|og|twitter|parsely|weibo:(article|webpage))\s*[-.:]\s*)?(author|creator|pub-date|description|title|site_name)\s*$/i;

export function metaOf(head: AnyNode[]): { title: string; author: boolean } {
  const values = new Map<string, string>();
  for (const node of head) {
    if (node.type !== 'tag' || node.name !== 'meta') continue;
    const content = node.attribs.content?.trim();
    if (!content) continue;
    const property = node.attribs.property?.match(META_PROPERTY);
    if (property) values.set(property[0].toLowerCase().replace(/\s/g, ''), content);
    const name = node.attribs.name;
    if (name && META_NAME.test(name)) values.set(name.toLowerCase().replace(/\s/g, '').replace(/\./g, ':'), content);
  }
  const title = TITLE_KEYS.map((key) => values.get(key)).find((value) => value) ?? '';
  return { title, author: AUTHOR_KEYS.some((key) => values.get(key)) };
}

/**
 * The scoring keeps the headline out of its content, or keeps the page's h1 as an h2; the headline
 * belongs to the article as its h1 (`text`: the article's normalised text; `h1s`: the page's h1 texts).
 */
function withHeadline(article: Element, text: string, title: string, h1s: string[]): AnyNode[] {
  const headline = normalised(title);
  const held = headline !== '' && text.includes(headline);
  const nodes: AnyNode[] = [article];
  if (headline !== '' && !held) {
    nodes.unshift(element('h1', {}, [new Text(title)]));
  }
  if (held && h1s.some((h1) => normalised(h1) === headline)) {
    const demoted = firstHeading(nodes, (heading) => heading.name === 'h2' && normalised(flatText(heading)) === headline);
    if (demoted) demoted.name = 'h1';
  }
  return nodes;
}

/**
 * The page's main content. `body` (parsed by htmlparser2) is first stripped of furniture; a
 * Readability-style scoring (pick/) then picks the article in what is left, which loses
 * its decorative pictures and noise lines and gets its headline back. When it picks too little or
 * nothing, the prose blocks of the page are taken instead; when there are none, the cleaned page.
 * `head` (title and meta tags) gives the title whose duplicate heading the scoring drops, and says
 * whether the author is named there (else the scoring drops the page's byline element).
 */
export function selectMainContent(body: ParentNode, head: AnyNode[], headlines: HeadlineSource): MainContent {
  const shape = removeFurniture(body);
  if (shape.elements > SCORING_BOUNDS.elements || shape.depth > SCORING_BOUNDS.depth) {
    return { nodes: [...body.children], source: 'page' };
  }
  const meta = metaOf(head);
  const title = meta.title || headlines.title;
  const scored = scoredArticle(body, title, meta.author);
  const article = scored?.content;
  // normalised(flatText(article)), read by the scoring; the pictures removed below hold no text.
  const articleText = scored ? scored.text.toLowerCase() : '';
  if (article) {
    removeDecorativeImages(article);
    if (articleText.length >= MIN_ARTICLE_CHARS || articleText.length >= chars(body.children) / 3) {
      const headline = chooseHeadline(headlines, articleText, title);
      return { nodes: dropNoiseParagraphs(withHeadline(article, articleText, headline, headlines.h1s)), source: 'article' };
    }
  }
  const prose = proseBlocks(body);
  if (chars(prose) > articleText.length) return { nodes: prose, source: 'baseline' };
  if (article && articleText.length > 0) return { nodes: withHeadline(article, articleText, chooseHeadline(headlines, articleText, title), headlines.h1s), source: 'article' };
  return { nodes: [...body.children], source: 'page' };
}
