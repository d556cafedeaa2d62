import { Text, type Element } from 'domhandler';
import { flatText } from '../../document.js';
import { finish, isBox, linkDensity, newBox, setItems, type Box, type Context } from './box.js';
import { collapseWhitespace } from '../../whitespace.js';
import { isBlank } from './text-span.js';
import { marker } from './weights.js';

/* Readability's word lists (class and id names, roles, tags), as it has them. */
const UNLIKELY = /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|shadow/i;
const BYLINE = /byline|author|dateline|writtenby|p-author/i;
const UNLIKELY_ROLES = new Set(['menu', 'menubar', 'complementary', 'navigation', 'alert', 'alertdialog', 'dialog']);
const SCORED = new Set(['section', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'pre']);
/** Containers Readability drops when they hold no text and nothing but <br> and <hr>. */
const DROPPED_WHEN_EMPTY = new Set(['div', 'section', 'header', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

function isBreak(item: Box | Text): boolean {
  return isBox(item) && item.name === 'br';
}

function isWhitespace(item: Box | Text): boolean {
  return isBox(item) ? item.name === 'br' : isBlank(item.data);
}

/** Readability's token overlap of a heading with the title: the share of the heading's words the title has. */
function similarity(title: string, heading: string): number {
  const tokensA = title.toLowerCase().split(/\W+/).filter(Boolean);
  const tokensB = heading.toLowerCase().split(/\W+/).filter(Boolean);
  if (tokensA.length === 0 || tokensB.length === 0) return 0;
  const unique = tokensB.filter((token) => !tokensA.includes(token));
  return 1 - unique.join(' ').length / tokensB.join(' ').length;
}

/** A paragraph Readability makes of loose items, trimmed of trailing whitespace and <br>. */
function paragraphOf(items: Array<Box | Text>, context: Context): Box {
  while (items.length > 0 && isWhitespace(items[items.length - 1])) items.pop();
  const box = newBox('p', null, items, context);
  finish(box);
  context.units.push(box);
  return box;
}

/** Whether the next item after `at` that is not blank text is a <br>. */
function nextIsBreak(items: Array<Box | Text>, at: number): number {
  for (let i = at + 1; i < items.length; i += 1) {
    const item = items[i];
    if (isBox(item)) return item.name === 'br' ? i : -1;
    if (!isBlank(item.data)) return -1;
  }
  return -1;
}

/** Readability's _replaceBrs: two or more <br> in a row start a paragraph of the phrasing items that follow (`items` itself when none do). */
export function breaksToParagraphs(items: Array<Box | Text>, context: Context): Array<Box | Text> {
  if (!items.some(isBreak)) return items;
  const out: Array<Box | Text> = [];
  let made = false;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i];
    let next = isBreak(item) ? nextIsBreak(items, i) : -1;
    if (next < 0) {
      out.push(item);
      continue;
    }
    // Drop the further <br> (blank text between them stays, then is trimmed off the paragraph's end or kept at its start).
    const kept: Array<Box | Text> = [];
    let j = i + 1;
    while (next >= 0) {
      for (; j < next; j += 1) kept.push(items[j]);
      j = next + 1;
      next = nextIsBreak(items, next);
    }
    const body: Array<Box | Text> = [...kept];
    for (; j < items.length; j += 1) {
      const candidate = items[j];
      if (isBreak(candidate) && nextIsBreak(items, j) >= 0) break;
      if (isBox(candidate) && !candidate.phrasing) break;
      body.push(candidate);
    }
    out.push(paragraphOf(body, context));
    made = true;
    i = j - 1;
  }
  return made ? out : items;
}

/** Readability's reading of a div: loose phrasing runs become paragraphs; then the div is its one paragraph, a paragraph, or stays. */
function readDiv(box: Box, context: Context): Box {
  const out: Array<Box | Text> = [];
  let run: Array<Box | Text> | null = null;
  let wrapped = false;
  for (const item of box.items) {
    const phrasing = !isBox(item) || item.phrasing;
    if (phrasing) {
      if (run) run.push(item);
      else if (!isWhitespace(item)) run = [item];
      else out.push(item);
      continue;
    }
    if (run) out.push(paragraphOf(run, context));
    wrapped ||= run !== null;
    run = null;
    out.push(item);
  }
  if (run) {
    wrapped = true;
    const last = newBox('p', null, run, context);
    finish(last);
    context.units.push(last);
    out.push(last);
  }
  if (wrapped) {
    setItems(box, out);
    finish(box);
  }
  const elements = out.filter(isBox);
  const onlyParagraph = elements.length === 1 && elements[0].name === 'p' && out.every((item) => isBox(item) || isBlank(item.data));
  if (onlyParagraph && linkDensity(box.counts) < 0.25) return elements[0];
  if (!box.holdsBlock) {
    box.name = 'p';
    box.counts.p += 1;
    context.units.push(box);
  }
  return box;
}

/** Readability's byline test (`match`: the element's class and id); the text is read only for elements named like one. */
function isByline(element: Element, match: string): boolean {
  const itemprop = element.attribs.itemprop;
  const named = element.attribs.rel === 'author' || (itemprop !== undefined && itemprop.includes('author')) || BYLINE.test(match);
  if (!named) return false;
  const length = flatText(element).trim().length;
  return length > 0 && length < 100;
}

function hasAncestor(ancestors: string[], name: string, depth: number): boolean {
  for (let i = ancestors.length - 1, seen = 0; i >= 0 && seen <= depth; i -= 1, seen += 1) if (ancestors[i] === name) return true;
  return false;
}

/** Reads an element into a box (null when Readability drops it before scoring). `ancestors`: the names above it. */
export function read(element: Element, ancestors: string[], context: Context): Box | null {
  const name = element.name.toLowerCase();
  const { attribs } = element;
  if (attribs['aria-modal'] === 'true' && attribs.role === 'dialog') return null;
  const match = marker(element);
  if (!context.bylineTaken && isByline(element, match)) {
    context.bylineTaken = true;
    return null;
  }
  if (!context.titleTaken && (name === 'h1' || name === 'h2') && similarity(context.title, collapseWhitespace(flatText(element))) > 0.75) {
    context.titleTaken = true;
    return null;
  }
  if (context.flags.stripUnlikely) {
    if (UNLIKELY.test(match) && !MAYBE_CANDIDATE.test(match) && !hasAncestor(ancestors, 'table', 3) && !hasAncestor(ancestors, 'code', 3) && name !== 'a') return null;
    if (attribs.role && UNLIKELY_ROLES.has(attribs.role)) return null;
  }
  const box = newBox(name === 'font' ? 'span' : name, element, [], context);
  ancestors.push(name);
  const start = context.readTop;
  for (const child of element.children) {
    const item = child instanceof Text ? child : child.type === 'tag' ? read(child, ancestors, context) : null;
    if (!item) continue;
    context.read[context.readTop] = item;
    context.readTop += 1;
  }
  const items = context.read.slice(start, context.readTop);
  context.readTop = start;
  ancestors.pop();
  const broken = breaksToParagraphs(items, context);
  setItems(box, broken);
  if (broken !== items && box.name === 'p') box.name = 'div';
  finish(box);
  if (DROPPED_WHEN_EMPTY.has(box.name) && box.span.blank) {
    if (box.items.every((item) => !isBox(item) || item.name === 'br' || item.name === 'hr')) return null;
  }
  if (box.name === 'div') return readDiv(box, context);
  if (SCORED.has(box.name)) context.units.push(box);
  return box;
}
