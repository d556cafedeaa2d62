import { Text, type AnyNode, type Element, type ParentNode } from 'domhandler';
import { flatText } from '../../document.js';
import { finish, newBox, setItems, type Box, type Context, type Flags } from './box.js';
import { prepare } from './clean.js';
import { copyItems, element, simplifyNested } from './copy.js';
import { breaksToParagraphs, read } from './read.js';
import { scoreCandidates, topCandidate, withSiblings } from './score.js';
import { collapseWhitespace } from '../../whitespace.js';

/*
 * Readability's scoring (Mozilla Readability 0.6, _grabArticle and _prepArticle) done on the parsed
 * page itself, without a second DOM. The page is read once into boxes: each element as Readability
 * would see it after its own rewrites (double <br> and loose text in a div become paragraphs, a div
 * without blocks is a paragraph, a div holding one paragraph is that paragraph), with the
 * statistics its rules ask for (text length, link text, commas, paragraphs, pictures, list items...)
 * summed bottom-up once, so no rule walks a subtree again. The pick and its clean-up read those
 * numbers; only the boxes of the pick are copied out as parsed nodes.
 */

export interface ScoredArticle {
  /** Readability's article container. */
  content: Element;
  /** Its text, whitespace collapsed and trimmed. */
  text: string;
}

function collapsedText(content: Element): string {
  return collapseWhitespace(flatText(content));
}

function attempt(body: ParentNode, title: string, bylineKnown: boolean, flags: Flags): ScoredArticle {
  const context: Context = { flags, title, bylineTaken: bylineKnown, titleTaken: false, units: [], order: 0, read: [], readTop: 0 };
  const root = newBox('body', null, [], context);
  const items: Array<Box | Text> = [];
  const ancestors: string[] = ['body'];
  for (const child of body.children) {
    if (child instanceof Text) items.push(child);
    else if (child.type === 'tag') {
      const box = read(child, ancestors, context);
      if (box) items.push(box);
    }
  }
  setItems(root, breaksToParagraphs(items, context));
  finish(root);
  const top = scoreCandidates(context);
  const article = newBox('div', null, [], context);
  let pageWrapper: Box | null = null;
  if (top.length === 0 || top[0] === root) {
    pageWrapper = newBox('div', null, root.items, context);
    finish(pageWrapper);
    setItems(article, [pageWrapper]);
  } else {
    setItems(article, withSiblings(topCandidate(top, root, flags)));
  }
  finish(article);
  prepare(article, flags);
  const kept = pageWrapper ?? article;
  const copied = kept.removed ? [] : copyItems(kept.items);
  const page = element('div', { class: 'page', id: 'readability-page-1' }, copied);
  const content = element('div', { id: 'readability-content' }, [page]);
  return { content, text: collapsedText(content) };
}

/** Readability's minimum article (charThreshold in article.ts). */
const CHAR_THRESHOLD = 300;

/** The article after Readability's last pass; its text is read again only when that pass changed it. */
function simplified(article: ScoredArticle): ScoredArticle {
  return simplifyNested(article.content) ? { content: article.content, text: collapsedText(article.content) } : article;
}

/**
 * Readability's article on the parsed, furniture-stripped `body` (left as it is): its container
 * element, as Readability would give it, and its text, or null when nothing has text. `title`: the
 * page's title, whose duplicate heading goes; `bylineKnown`: the page's meta tags name the author
 * (then no byline element is taken out).
 */
export function scoredArticle(body: ParentNode, title: string, bylineKnown: boolean): ScoredArticle | null {
  const flags: Flags = { stripUnlikely: true, weightClasses: true, cleanConditionally: true };
  const attempts: ScoredArticle[] = [];
  for (;;) {
    const result = attempt(body, title, bylineKnown, { ...flags });
    if (result.text.length >= CHAR_THRESHOLD) return simplified(result);
    attempts.push(result);
    if (flags.stripUnlikely) flags.stripUnlikely = false;
    else if (flags.weightClasses) flags.weightClasses = false;
    else if (flags.cleanConditionally) flags.cleanConditionally = false;
    else break;
  }
  const longest = attempts.reduce((best, next) => (next.text.length > best.text.length ? next : best));
  return longest.text.length > 0 ? simplified(longest) : null;
}
