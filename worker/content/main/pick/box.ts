import { Text, type Element } from 'domhandler';
import { collapseWhitespace } from '../../whitespace.js';
import { EMPTY_SPAN, extend, scan, trimmed, type Span } from './text-span.js';

const BLOCKS = new Set(['blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul']);
const PHRASING = new Set([
  'abbr', 'audio', 'b', 'bdo', 'br', 'button', 'cite', 'code', 'data', 'datalist', 'dfn', 'em', 'embed', 'i', 'img', 'input', 'kbd',
  'label', 'mark', 'math', 'meter', 'noscript', 'object', 'output', 'progress', 'q', 'ruby', 'samp', 'script', 'select', 'small', 'span',
  'strong', 'sub', 'sup', 'textarea', 'time', 'var', 'wbr', 'canvas', 'iframe', 'svg', 'video',
]);

/** A link to a fragment of the page (Readability weighs its text 0.3). */
const FRAGMENT = /^#.+/;

export const TEXTISH = new Set(['span', 'li', 'td', ...BLOCKS]);
export const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Readability's passes: it drops unlikely names first, then class weights, then its conditional clean-up, while its pick is too short. */
export interface Flags {
  stripUnlikely: boolean;
  weightClasses: boolean;
  cleanConditionally: boolean;
}

/** Counts over a box and everything under it; additive, so a removed box's counts come off its ancestors. */
export interface Counts {
  /** Whitespace-collapsed, trimmed text length (Readability's inner text). */
  chars: number;
  commas: number;
  asciiCommas: number;
  /** Link text, links to a fragment weighted 0.3. */
  linked: number;
  p: number;
  img: number;
  li: number;
  input: number;
  headingChars: number;
  /** Text of the outermost lists. */
  listChars: number;
  /** Text-bearing span, li, td and block elements. */
  textish: number;
  dataTables: number;
}

/** Adds `from` to `into`, each count (times `sign`: -1 takes a removed box's counts off). */
export function addCounts(into: Counts, from: Counts, sign: 1 | -1 = 1): void {
  into.chars += sign * from.chars;
  into.commas += sign * from.commas;
  into.asciiCommas += sign * from.asciiCommas;
  into.linked += sign * from.linked;
  into.p += sign * from.p;
  into.img += sign * from.img;
  into.li += sign * from.li;
  into.input += sign * from.input;
  into.headingChars += sign * from.headingChars;
  into.listChars += sign * from.listChars;
  into.textish += sign * from.textish;
  into.dataTables += sign * from.dataTables;
}

function zero(): Counts {
  return { chars: 0, commas: 0, asciiCommas: 0, linked: 0, p: 0, img: 0, li: 0, input: 0, headingChars: 0, listChars: 0, textish: 0, dataTables: 0 };
}

const NO_COUNTS: Readonly<Counts> = zero();

/** An element as Readability sees it after its rewrites; `source` null for a paragraph it makes of loose text. */
export interface Box {
  name: string;
  source: Element | null;
  parent: Box | null;
  items: Array<Box | Text>;
  span: Span;
  counts: Counts;
  /** An element of BLOCKS somewhere under it (not itself). */
  holdsBlock: boolean;
  phrasing: boolean;
  /** Pre-order position, for Readability's order among equal scores. */
  order: number;
  score?: number;
  removed?: boolean;
  dataTable?: boolean;
}

export interface Context {
  flags: Flags;
  title: string;
  bylineTaken: boolean;
  titleTaken: boolean;
  units: Box[];
  order: number;
  /** The items read so far of the elements being read, up to `readTop`: each box takes its own as an exact-size slice (arrays grown by push are mostly spare room). */
  read: Array<Box | Text>;
  readTop: number;
}

export function isBox(item: Box | Text): item is Box {
  return !(item instanceof Text);
}

export function linkDensity(counts: Counts): number {
  return counts.chars === 0 ? 0 : counts.linked / counts.chars;
}

export function innerText(box: Box): string {
  const parts: string[] = [];
  const visit = (item: Box | Text): void => {
    if (isBox(item)) item.items.forEach(visit);
    else parts.push(item.data);
  };
  visit(box);
  return collapseWhitespace(parts.join(''));
}

/** Sums the counts of a box afresh (on its own counts object) from its items, and its own part by its (final) name. */
export function finish(box: Box): void {
  const counts = Object.assign(box.counts, NO_COUNTS);
  const span: Span = { ...EMPTY_SPAN };
  let holdsBlock = false;
  for (const item of box.items) {
    if (!isBox(item)) {
      const text = scan(item.data);
      extend(span, text);
      counts.commas += text.commas;
      counts.asciiCommas += text.asciiCommas;
      continue;
    }
    extend(span, item.span);
    addCounts(counts, item.counts);
    holdsBlock ||= item.holdsBlock || BLOCKS.has(item.name);
    if (item.name === 'ul' || item.name === 'ol') counts.listChars += item.counts.chars - item.counts.listChars;
  }
  counts.chars = trimmed(span);
  const { name } = box;
  if (name === 'a') {
    const href = box.source?.attribs.href;
    counts.linked = counts.chars * (href && FRAGMENT.test(href) ? 0.3 : 1);
  }
  if (name === 'p') counts.p += 1;
  else if (name === 'img') counts.img += 1;
  else if (name === 'li') counts.li += 1;
  else if (name === 'input') counts.input += 1;
  if (HEADINGS.has(name)) counts.headingChars = counts.chars;
  if (TEXTISH.has(name) && counts.chars > 0) counts.textish += 1;
  box.span = span;
  box.holdsBlock = holdsBlock;
  box.phrasing = PHRASING.has(name) || ((name === 'a' || name === 'del' || name === 'ins') && box.items.every((item) => !isBox(item) || item.phrasing));
}

export function newBox(name: string, source: Element | null, items: Array<Box | Text>, context: Context): Box {
  const box: Box = { name, source, parent: null, items, span: EMPTY_SPAN, counts: zero(), holdsBlock: false, phrasing: false, order: context.order++, score: undefined, removed: false, dataTable: false };
  setItems(box, items);
  return box;
}

/** Gives `box` the items `items`, each box among them taking it as parent. */
export function setItems(box: Box, items: Array<Box | Text>): void {
  box.items = items;
  for (const item of items) if (isBox(item)) item.parent = box;
}
