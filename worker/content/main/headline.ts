import type { Element, ParentNode } from 'domhandler';
import { flatText } from '../document.js';
import { findElements } from '../walk.js';
import { collapseWhitespace } from '../whitespace.js';

const HEADINGS = new Set(['h1', 'h2', 'h3']);
/**
 * Title separators: "Headline - Site", "Site | Section | Headline", "Site > News > Headline"; a pipe or
 * an underscore also without spaces ("Headline|ABC 7 News", "Headline_English_Xinhua").
 */
const TITLE_SEPARATOR = /\s+(?:[-|:\u00bb\u2013\u2014>]|::)\s+|\s*[|_]\s*/;
/** A title part names the article when at least this share of its words is in the article's text. */
const MIN_SHARED_WORDS = 0.5;
/** A heading shorter than this (words) is a section's name ("World news") unless it is a whole part of the title. */
const MIN_HEADING_WORDS = 3;
/** Headings longer than this (characters) are not headlines. */
const MAX_HEADLINE = 300;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

function clean(text: string): string {
  return collapseWhitespace(text);
}

/** The document's title as a browser gives it: the first `title` element, in the head or (old pages) anywhere. */
function documentTitle(root: ParentNode): string {
  const [title] = findElements(root, (element) => element.name === 'title', (element) => element.name !== 'svg', 1);
  return title ? clean(flatText(title)) : '';
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/uy;
const AFTER_LETTER_OR_DIGIT = /(?<=[\p{L}\p{N}])/uy;

/** Whether `word` (from words()) is one of the words of `text` (lower case), found without splitting all of `text` into words. */
function hasWord(text: string, word: string): boolean {
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + 1)) {
    AFTER_LETTER_OR_DIGIT.lastIndex = at;
    LETTER_OR_DIGIT.lastIndex = at + word.length;
    if (!AFTER_LETTER_OR_DIGIT.test(text) && !LETTER_OR_DIGIT.test(text)) return true;
  }
  return false;
}

/** Words of `part` found among the words of `text` (lower case), as a share of its words. */
function sharedShare(part: string, text: string): number {
  const partWords = words(part);
  if (partWords.length === 0) return 0;
  return partWords.filter((word) => hasWord(text, word)).length / partWords.length;
}

export interface HeadlineSource {
  title: string;
  headings: string[];
  /** The page's h1 texts. */
  h1s: string[];
}

/** What the headline is chosen from: the document's title and the page's h1-h3 texts, read before any clean-up. */
export function headlineSource(root: ParentNode): HeadlineSource {
  const found = findElements(root, (element: Element) => HEADINGS.has(element.name));
  const text = (element: Element): string => clean(flatText(element));
  const usable = (heading: string): boolean => heading !== '' && heading.length <= MAX_HEADLINE;
  const texts = found.map(text);
  return {
    title: documentTitle(root),
    headings: texts.filter(usable),
    h1s: texts.filter((heading, i) => found[i].name === 'h1' && usable(heading)),
  };
}

/**
 * The article's headline, as trafilatura and newspaper match title and headings: the longest h1-h3
 * the title names (titles carry the site's and section's names beside it); else the part of the
 * title whose words are in the article (a site's name is not); else the page's only h1. Empty when
 * none: a title that names only the site is no headline. `articleText`: the article's text in lower
 * case; `fallbackTitle`: Readability's title (also from meta tags), for pages without a title element.
 */
export function chooseHeadline(source: HeadlineSource, articleText: string, fallbackTitle: string): string {
  const title = source.title || clean(fallbackTitle);
  const titleWords = new Set(words(title));
  const parts = title.split(TITLE_SEPARATOR).map(clean).filter((part) => part !== '');
  const named = source.headings.filter((heading) => {
    const headingWords = words(heading);
    const whole = heading === title || parts.includes(heading);
    return whole || (headingWords.length >= MIN_HEADING_WORDS && headingWords.every((word) => titleWords.has(word)));
  });
  if (named.length > 0) return named.reduce((best, heading) => (words(heading).length > words(best).length ? heading : best));
  const naming = parts.filter((part) => sharedShare(part, articleText) >= MIN_SHARED_WORDS);
  if (naming.length > 0) return naming.reduce((best, part) => (part.length > best.length ? part : best));
  return source.h1s.length === 1 ? source.h1s[0] : '';
}
