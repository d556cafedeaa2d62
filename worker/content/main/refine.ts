import { Element, type AnyNode } from 'domhandler';
import { paragraphs, type Paragraph } from './paragraphs.js';

/** jusText's link-density limit: a paragraph with more of its text in links is navigation. */
const MAX_LINK_DENSITY = 0.2;
/** Lines longer than this are prose even when they carry a date. */
const MAX_DATE_LINE = 80;

const MONTHS = 'jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?';
const DAYS = 'mon(day)?|tue(s|sday)?|wed(nesday)?|thu(rs|rsday)?|fri(day)?|sat(urday)?|sun(day)?';
const DATE_WORDS = new RegExp(
  `\\b(${MONTHS}|${DAYS}|[ap]\\.?m\\.?|gmt|utc|[ecmp][sd]t|et|bst|cet|ist|posted|published|updated|last|modified|first|on|at|date|time|today|yesterday)\\b|\\d[\\d:/.,-]*(st|nd|rd|th)?`,
  'gi',
);

const DATE_EVIDENCE = new RegExp(`\\b(${MONTHS}|${DAYS})\\b|\\d{1,2}:\\d{2}|\\b\\d{1,4}[-/.]\\d{1,2}[-/.]\\d{1,4}\\b`, 'i');

/** A short line that is only a date or time ("Posted: Mon, 14 Jan 2008 11:54 GMT"): page furniture, as trafilatura treats it. */
export function isDateLine(text: string): boolean {
  if (text.length > MAX_DATE_LINE || !DATE_EVIDENCE.test(text)) return false;
  return (text.replace(DATE_WORDS, ' ').match(/\p{L}{2,}/gu) ?? []).length === 0;
}

/** jusText's context-free "bad" paragraphs that survive in an article: link-heavy lines, copyright lines; and date lines outside cells. */
function isNoise({ text, linked, owner }: Paragraph): boolean {
  if (linked / text.length > MAX_LINK_DENSITY || text.includes('\u00a9')) return true;
  return !CELLS.has(owner.name) && isDateLine(text);
}

/** A date in a table cell is data. */
const CELLS = new Set(['td', 'th']);
/** A clean-up that would take more than this share of the article's text is not applied: the page is a listing or a link hub. */
const MAX_DROPPED_SHARE = 0.5;

/**
 * Paragraph-level clean-up of the chosen article, in jusText's segmentation (block tags and double
 * <br> end a paragraph): a paragraph that is the whole of its block and is noise goes with its block.
 */
export function dropNoiseParagraphs(nodes: AnyNode[]): AnyNode[] {
  const root = new Element('div', {}, nodes);
  for (const node of nodes) node.parent = root;
  const list = paragraphs(root);
  const noise = list.filter((paragraph) => paragraph.whole && !paragraph.heading && paragraph.owner !== root && isNoise(paragraph));
  const total = list.reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  const dropped = noise.reduce((sum, paragraph) => sum + paragraph.text.length, 0);
  if (dropped <= total * MAX_DROPPED_SHARE) {
    for (const { owner } of noise) {
      const parent = owner.parent as Element | null;
      if (parent) parent.children = parent.children.filter((child) => child !== owner);
    }
  }
  for (const child of root.children) child.parent = null;
  return root.children;
}
