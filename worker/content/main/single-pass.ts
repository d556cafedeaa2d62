import { Element, Text, type AnyNode, type ParentNode } from 'domhandler';
import { flatText } from '../document.js';

/*
 * Readability's scoring (Mozilla Readability 0.6, _grabArticle and _prepArticle) done on the parsed
 * page itself, without a second DOM. The page is read once into boxes: each element as Readability
 * would see it after its own rewrites (double <br> and loose text in a div become paragraphs, a div
 * without blocks is a paragraph, a div holding one paragraph is that paragraph), with the
 * statistics its rules ask for (text length, link text, commas, paragraphs, pictures, list items...)
 * summed bottom-up once, so no rule walks a subtree again. The pick and its clean-up read those
 * numbers; only the boxes of the pick are copied out as parsed nodes.
 */

/* Readability's word lists (class and id names, roles, tags), as it has them. */
const UNLIKELY = /-ad-|ai2html|banner|breadcrumbs|combx|comment|community|cover-wrap|disqus|extra|footer|gdpr|header|legends|menu|related|remark|replies|rss|shoutbox|sidebar|skyscraper|social|sponsor|supplemental|ad-break|agegate|pagination|pager|popup|yom-remote/i;
const MAYBE_CANDIDATE = /and|article|body|column|content|main|shadow/i;
const POSITIVE = /article|body|content|entry|hentry|h-entry|main|page|pagination|post|text|blog|story/i;
const NEGATIVE = /-ad-|hidden|^hid$| hid$| hid |^hid |banner|combx|comment|com-|contact|footer|gdpr|masthead|media|meta|outbrain|promo|related|scroll|share|shoutbox|sidebar|skyscraper|sponsor|shopping|tags|widget/i;
const BYLINE = /byline|author|dateline|writtenby|p-author/i;
const SHARE = /(\b|_)(share|sharedaddy)(\b|_)/i;
const AD_WORDS = /^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|Anuncio)$/iu;
const LOADING_WORDS = /^((loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$/iu;
const UNLIKELY_ROLES = new Set(['menu', 'menubar', 'complementary', 'navigation', 'alert', 'alertdialog', 'dialog']);
const SCORED = new Set(['section', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'td', 'pre']);
const BLOCKS = new Set(['blockquote', 'dl', 'div', 'img', 'ol', 'p', 'pre', 'table', 'ul']);
const PHRASING = new Set([
  'abbr', 'audio', 'b', 'bdo', 'br', 'button', 'cite', 'code', 'data', 'datalist', 'dfn', 'em', 'embed', 'i', 'img', 'input', 'kbd',
  'label', 'mark', 'math', 'meter', 'noscript', 'object', 'output', 'progress', 'q', 'ruby', 'samp', 'script', 'select', 'small', 'span',
  'strong', 'sub', 'sup', 'textarea', 'time', 'var', 'wbr', 'canvas', 'iframe', 'svg', 'video',
]);
const KEPT_NAMES = new Set(['div', 'article', 'section', 'p', 'ol', 'ul']);
const TEXTISH = new Set(['span', 'li', 'td', ...BLOCKS]);
const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
const ALWAYS_CLEANED = new Set(['object', 'embed', 'footer', 'link', 'aside', 'iframe', 'input', 'textarea', 'select', 'button']);
const PRESENTATIONAL = new Set(['align', 'background', 'bgcolor', 'border', 'cellpadding', 'cellspacing', 'frame', 'hspace', 'rules', 'style', 'valign', 'vspace']);
const SIZED = new Set(['table', 'th', 'td', 'hr', 'pre']);

/** Readability's passes: it drops unlikely names first, then class weights, then its conditional clean-up, while its pick is too short. */
interface Flags {
  stripUnlikely: boolean;
  weightClasses: boolean;
  cleanConditionally: boolean;
}

/** Counts over a box and everything under it; additive, so a removed box's counts come off its ancestors. */
interface Counts {
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

const COUNT_KEYS = ['chars', 'commas', 'asciiCommas', 'linked', 'p', 'img', 'li', 'input', 'headingChars', 'listChars', 'textish', 'dataTables'] as const;

function zero(): Counts {
  return { chars: 0, commas: 0, asciiCommas: 0, linked: 0, p: 0, img: 0, li: 0, input: 0, headingChars: 0, listChars: 0, textish: 0, dataTables: 0 };
}

/** Collapsed text of a run of nodes, to join lengths without reading the text again. */
interface Span {
  length: number;
  lead: boolean;
  trail: boolean;
  blank: boolean;
}

const EMPTY_SPAN: Span = { length: 0, lead: false, trail: false, blank: true };

/** Whitespace as JavaScript's \\s: ASCII spaces, the no-break space and the Unicode spaces. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return code === 160 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Readability's comma variants (Latin, Arabic, small, vertical, ideographic...). */
function isComma(code: number): boolean {
  return code === 0x2c || code === 0x060c || code === 0xfe50 || code === 0xfe10 || code === 0xfe11 || code === 0x2e41 || code === 0x2e34 || code === 0x2e32 || code === 0xff0c;
}

interface TextCounts {
  span: Span;
  commas: number;
  asciiCommas: number;
}

/** The collapsed span and the commas of a text, in one scan without copies. */
function scan(data: string): TextCounts {
  let length = 0;
  let commas = 0;
  let asciiCommas = 0;
  let inSpace = false;
  let blank = true;
  for (let i = 0; i < data.length; i += 1) {
    const code = data.charCodeAt(i);
    if (isSpace(code)) {
      if (!inSpace) length += 1;
      inSpace = true;
      continue;
    }
    inSpace = false;
    blank = false;
    length += 1;
    if (code === 0x2c) {
      commas += 1;
      asciiCommas += 1;
    } else if (code > 0x2c && isComma(code)) commas += 1;
  }
  if (length === 0) return { span: EMPTY_SPAN, commas, asciiCommas };
  const span = { length, lead: isSpace(data.charCodeAt(0)), trail: isSpace(data.charCodeAt(data.length - 1)), blank };
  return { span, commas, asciiCommas };
}

function join(a: Span, b: Span): Span {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const shared = a.trail && b.lead ? 1 : 0;
  return { length: a.length + b.length - shared, lead: a.lead || (a.blank && b.lead), trail: b.trail || (b.blank && a.trail), blank: a.blank && b.blank };
}

function trimmed(span: Span): number {
  if (span.blank) return 0;
  return span.length - (span.lead ? 1 : 0) - (span.trail ? 1 : 0);
}

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

interface Context {
  flags: Flags;
  title: string;
  bylineTaken: boolean;
  titleTaken: boolean;
  units: Box[];
  order: number;
}

function isBox(item: Box | Text): item is Box {
  return !(item instanceof Text);
}

function marker(element: Element | null): string {
  return element ? `${element.attribs.class ?? ''} ${element.attribs.id ?? ''}` : ' ';
}

function classWeight(box: Box, flags: Flags): number {
  if (!flags.weightClasses || !box.source) return 0;
  let weight = 0;
  for (const value of [box.source.attribs.class, box.source.attribs.id]) {
    if (!value) continue;
    if (NEGATIVE.test(value)) weight -= 25;
    if (POSITIVE.test(value)) weight += 25;
  }
  return weight;
}

function tagBase(name: string): number {
  if (name === 'div') return 5;
  if (name === 'pre' || name === 'td' || name === 'blockquote') return 3;
  if (['address', 'ol', 'ul', 'dl', 'dd', 'dt', 'li', 'form'].includes(name)) return -3;
  if (HEADINGS.has(name) || name === 'th') return -5;
  return 0;
}

function linkDensity(counts: Counts): number {
  return counts.chars === 0 ? 0 : counts.linked / counts.chars;
}

function isWhitespace(item: Box | Text): boolean {
  return isBox(item) ? item.name === 'br' : item.data.trim() === '';
}

/** Readability's token overlap of a heading with the title: the share of the heading's words the title has. */
function similarity(title: string, heading: string): number {
  const tokensA = title.toLowerCase().split(/\W+/).filter(Boolean);
  const tokensB = heading.toLowerCase().split(/\W+/).filter(Boolean);
  if (tokensA.length === 0 || tokensB.length === 0) return 0;
  const unique = tokensB.filter((token) => !tokensA.includes(token));
  return 1 - unique.join(' ').length / tokensB.join(' ').length;
}

/** Sums the counts of a box from its items, and its own part by its (final) name. */
function finish(box: Box): void {
  const counts = zero();
  let span = EMPTY_SPAN;
  let holdsBlock = false;
  for (const item of box.items) {
    if (!isBox(item)) {
      const text = scan(item.data);
      span = join(span, text.span);
      counts.commas += text.commas;
      counts.asciiCommas += text.asciiCommas;
      continue;
    }
    span = join(span, item.span);
    for (const key of COUNT_KEYS) counts[key] += item.counts[key];
    holdsBlock ||= item.holdsBlock || BLOCKS.has(item.name);
    if (item.name === 'ul' || item.name === 'ol') counts.listChars += item.counts.chars - item.counts.listChars;
  }
  counts.chars = trimmed(span);
  const { name } = box;
  if (name === 'a') {
    const href = box.source?.attribs.href;
    counts.linked = counts.chars * (href && /^#.+/.test(href) ? 0.3 : 1);
  }
  if (name === 'p') counts.p += 1;
  else if (name === 'img') counts.img += 1;
  else if (name === 'li') counts.li += 1;
  else if (name === 'input') counts.input += 1;
  if (HEADINGS.has(name)) counts.headingChars = counts.chars;
  if (TEXTISH.has(name) && counts.chars > 0) counts.textish += 1;
  box.span = span;
  box.counts = counts;
  box.holdsBlock = holdsBlock;
  box.phrasing = PHRASING.has(name) || ((name === 'a' || name === 'del' || name === 'ins') && box.items.every((item) => !isBox(item) || item.phrasing));
}

function newBox(name: string, source: Element | null, items: Array<Box | Text>, context: Context): Box {
  const box: Box = { name, source, parent: null, items, span: EMPTY_SPAN, counts: zero(), holdsBlock: false, phrasing: false, order: context.order++ };
  for (const item of items) if (isBox(item)) item.parent = box;
  return box;
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
    if (item.data.trim() !== '') return -1;
  }
  return -1;
}

/** Readability's _replaceBrs: two or more <br> in a row start a paragraph of the phrasing items that follow. */
function breaksToParagraphs(items: Array<Box | Text>, context: Context): { items: Array<Box | Text>; made: boolean } {
  if (!items.some((item) => isBox(item) && item.name === 'br')) return { items, made: false };
  const out: Array<Box | Text> = [];
  let made = false;
  for (let i = 0; i < items.length; i += 1) {
    const item = items[i];
    let next = isBox(item) && item.name === 'br' ? nextIsBreak(items, i) : -1;
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
      if (isBox(candidate) && candidate.name === 'br' && nextIsBreak(items, j) >= 0) break;
      if (isBox(candidate) && !candidate.phrasing) break;
      body.push(candidate);
    }
    out.push(paragraphOf(body, context));
    made = true;
    i = j - 1;
  }
  return { items: out, made };
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
    box.items = out;
    for (const item of out) if (isBox(item)) item.parent = box;
    finish(box);
  }
  const elements = out.filter(isBox);
  const onlyParagraph = elements.length === 1 && elements[0].name === 'p' && out.every((item) => isBox(item) || item.data.trim() === '');
  if (onlyParagraph && linkDensity(box.counts) < 0.25) return elements[0];
  if (!box.holdsBlock) {
    box.name = 'p';
    box.counts.p += 1;
    context.units.push(box);
  }
  return box;
}

/** Readability's byline test; the text is read only for elements named like one. */
function isByline(element: Element): boolean {
  const itemprop = element.attribs.itemprop;
  const named = element.attribs.rel === 'author' || (itemprop !== undefined && itemprop.includes('author')) || BYLINE.test(marker(element));
  if (!named) return false;
  const length = flatText(element).trim().length;
  return length > 0 && length < 100;
}

function hasAncestor(ancestors: string[], name: string, depth: number): boolean {
  for (let i = ancestors.length - 1, seen = 0; i >= 0 && seen <= depth; i -= 1, seen += 1) if (ancestors[i] === name) return true;
  return false;
}

/** Reads an element into a box (null when Readability drops it before scoring). `ancestors`: the names above it. */
function read(element: Element, ancestors: string[], context: Context): Box | null {
  const name = element.name.toLowerCase();
  const { attribs } = element;
  if (attribs['aria-modal'] === 'true' && attribs.role === 'dialog') return null;
  if (!context.bylineTaken && isByline(element)) {
    context.bylineTaken = true;
    return null;
  }
  if (!context.titleTaken && (name === 'h1' || name === 'h2') && similarity(context.title, flatText(element).replace(/\s+/g, ' ').trim()) > 0.75) {
    context.titleTaken = true;
    return null;
  }
  if (context.flags.stripUnlikely) {
    const match = marker(element);
    if (UNLIKELY.test(match) && !MAYBE_CANDIDATE.test(match) && !hasAncestor(ancestors, 'table', 3) && !hasAncestor(ancestors, 'code', 3) && name !== 'a') return null;
    if (attribs.role && UNLIKELY_ROLES.has(attribs.role)) return null;
  }
  const box = newBox(name === 'font' ? 'span' : name, element, [], context);
  ancestors.push(name);
  const items: Array<Box | Text> = [];
  for (const child of element.children) {
    if (child instanceof Text) items.push(child);
    else if (child.type === 'tag') {
      const read_ = read(child, ancestors, context);
      if (read_) items.push(read_);
    }
  }
  ancestors.pop();
  const broken = breaksToParagraphs(items, context);
  box.items = broken.items;
  for (const item of box.items) if (isBox(item)) item.parent = box;
  if (broken.made && box.name === 'p') box.name = 'div';
  finish(box);
  if (['div', 'section', 'header', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6'].includes(box.name) && box.span.blank) {
    if (box.items.every((item) => !isBox(item) || item.name === 'br' || item.name === 'hr')) return null;
  }
  if (box.name === 'div') return readDiv(box, context);
  if (SCORED.has(box.name)) context.units.push(box);
  return box;
}

function ancestorsOf(box: Box, limit = Infinity): Box[] {
  const found: Box[] = [];
  for (let node = box.parent; node && found.length < limit; node = node.parent) found.push(node);
  return found;
}

/** Readability's candidate scores: paragraphs give 1 + commas + length to five levels of ancestors. */
function scoreCandidates(context: Context): Box[] {
  const candidates: Box[] = [];
  const units = [...context.units].sort((a, b) => a.order - b.order);
  for (const unit of units) {
    if (!unit.parent) continue;
    const length = unit.counts.chars;
    if (length < 25) continue;
    const score = 1 + (unit.counts.commas + 1) + Math.min(Math.floor(length / 100), 3);
    ancestorsOf(unit, 5).forEach((ancestor, level) => {
      if (ancestor.score === undefined) {
        ancestor.score = tagBase(ancestor.name) + classWeight(ancestor, context.flags);
        candidates.push(ancestor);
      }
      ancestor.score += score / (level === 0 ? 1 : level === 1 ? 2 : level * 3);
    });
  }
  const top: Box[] = [];
  for (const candidate of candidates) {
    candidate.score = (candidate.score ?? 0) * (1 - linkDensity(candidate.counts));
    for (let t = 0; t < 5; t += 1) {
      if (!top[t] || candidate.score > (top[t].score ?? 0)) {
        top.splice(t, 0, candidate);
        if (top.length > 5) top.pop();
        break;
      }
    }
  }
  return top;
}

function initialised(box: Box, flags: Flags): number {
  box.score ??= tagBase(box.name) + classWeight(box, flags);
  return box.score;
}

/** Readability's pick from the top candidates: a shared ancestor of close ones, a better-scoring parent, an only child's parent. */
function topCandidate(top: Box[], root: Box, flags: Flags): Box {
  let best = top[0];
  const bestScore = best.score ?? 0;
  const alternatives = top.slice(1).filter((candidate) => (candidate.score ?? 0) / bestScore >= 0.75).map((candidate) => ancestorsOf(candidate));
  if (alternatives.length >= 3) {
    for (let parent = best.parent; parent && parent !== root; parent = parent.parent) {
      if (alternatives.filter((list) => list.includes(parent as Box)).length >= 3) {
        best = parent;
        break;
      }
    }
  }
  initialised(best, flags);
  let lastScore = best.score ?? 0;
  const threshold = lastScore / 3;
  for (let parent = best.parent; parent && parent !== root; parent = parent.parent) {
    if (parent.score === undefined) continue;
    if (parent.score < threshold) break;
    if (parent.score > lastScore) {
      best = parent;
      break;
    }
    lastScore = parent.score;
  }
  while (best.parent && best.parent !== root && best.parent.items.filter(isBox).length === 1) best = best.parent;
  initialised(best, flags);
  return best;
}

function innerText(box: Box): string {
  const parts: string[] = [];
  const visit = (item: Box | Text): void => {
    if (isBox(item)) item.items.forEach(visit);
    else parts.push(item.data);
  };
  visit(box);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

/** The top candidate and the siblings Readability joins to it (scored well, or prose paragraphs). */
function withSiblings(best: Box): Box[] {
  const parent = best.parent;
  if (!parent) return [best];
  const threshold = Math.max(10, (best.score ?? 0) * 0.2);
  const bestClass = best.source?.attribs.class ?? '';
  const picked: Box[] = [];
  for (const sibling of parent.items.filter(isBox)) {
    let append = sibling === best;
    if (!append) {
      const bonus = bestClass !== '' && (sibling.source?.attribs.class ?? '') === bestClass ? (best.score ?? 0) * 0.2 : 0;
      if (sibling.score !== undefined && sibling.score + bonus >= threshold) append = true;
      else if (sibling.name === 'p') {
        const density = linkDensity(sibling.counts);
        const length = sibling.counts.chars;
        if (length > 80 && density < 0.25) append = true;
        else if (length < 80 && length > 0 && density === 0 && /\.( |$)/.test(innerText(sibling))) append = true;
      }
    }
    if (!append) continue;
    if (!KEPT_NAMES.has(sibling.name)) sibling.name = 'div';
    picked.push(sibling);
  }
  return picked;
}

function subtract(box: Box, removed: Counts): void {
  for (let node: Box | null = box; node; node = node.parent) for (const key of COUNT_KEYS) node.counts[key] -= removed[key];
}

function remove(box: Box): void {
  box.removed = true;
  const gone = { ...box.counts };
  if (box.parent) subtract(box.parent, gone);
}

function live(items: Array<Box | Text>): Box[] {
  return items.filter((item): item is Box => isBox(item) && !item.removed);
}

/** Readability's data-table test (_markDataTables), from the table's own cells. */
function isDataTable(table: Box): boolean {
  const attribs = table.source?.attribs ?? {};
  if (attribs.role === 'presentation' || attribs.datatable === '0') return false;
  if (attribs.summary) return true;
  const names = new Set<string>();
  const rows: Box[] = [];
  const visit = (box: Box): void => {
    for (const child of box.items) {
      if (!isBox(child)) continue;
      names.add(child.name);
      if (child.name === 'tr') rows.push(child);
      if (child.name === 'caption' && child.items.length > 0) names.add('caption+');
      visit(child);
    }
  };
  visit(table);
  if (names.has('caption+') || ['col', 'colgroup', 'tfoot', 'thead', 'th'].some((name) => names.has(name))) return true;
  if (names.has('table')) return false;
  let rowCount = 0;
  let columns = 0;
  for (const row of rows) {
    rowCount += Number.parseInt(row.source?.attribs.rowspan ?? '', 10) || 1;
    let inRow = 0;
    const cells = (box: Box): void => {
      for (const child of box.items) {
        if (!isBox(child)) continue;
        if (child.name === 'td') inRow += Number.parseInt(child.source?.attribs.colspan ?? '', 10) || 1;
        cells(child);
      }
    };
    cells(row);
    columns = Math.max(columns, inRow);
  }
  if (columns === 1 || rowCount === 1) return false;
  if (rowCount >= 10 || columns > 4) return true;
  return rowCount * columns > 10;
}

/** Readability's _cleanConditionally for one element, from its counts (what is already removed under it is off them). */
function looksFishy(box: Box, tag: string, ancestors: Box[], flags: Flags): boolean {
  if (tag === 'table' && box.dataTable) return false;
  if (ancestors.some((ancestor) => ancestor.name === 'table' && ancestor.dataTable)) return false;
  if (ancestors.slice(-4).some((ancestor) => ancestor.name === 'code')) return false;
  const counts = box.counts;
  if (counts.dataTables - (box.dataTable ? 1 : 0) > 0) return false;
  const weight = classWeight(box, flags);
  if (weight < 0) return true;
  if (counts.asciiCommas >= 10) return false;
  let isList = tag === 'ul' || tag === 'ol';
  if (!isList) isList = counts.chars > 0 ? counts.listChars / counts.chars > 0.9 : false;
  const p = counts.p - (box.name === 'p' ? 1 : 0);
  const img = counts.img - (box.name === 'img' ? 1 : 0);
  const liCount = counts.li - (box.name === 'li' ? 1 : 0);
  const li = liCount - 100;
  const input = counts.input;
  const length = counts.chars;
  if (length <= 20) {
    const text = innerText(box);
    if (AD_WORDS.test(text) || LOADING_WORDS.test(text)) return true;
  }
  const headingDensity = length === 0 ? 0 : (counts.headingChars - (HEADINGS.has(box.name) ? counts.chars : 0)) / length;
  const density = linkDensity(counts);
  const textish = counts.textish - (TEXTISH.has(box.name) && counts.chars > 0 ? 1 : 0);
  const inFigure = ancestors.slice(-4).some((ancestor) => ancestor.name === 'figure');
  const fishy =
    (!inFigure && img > 1 && p / img < 0.5) ||
    (!isList && li > p) ||
    input > Math.floor(p / 3) ||
    (!isList && !inFigure && headingDensity < 0.9 && length < 25 && (img === 0 || img > 2) && density > 0) ||
    (!isList && weight < 25 && density > 0.2) ||
    (weight >= 25 && density > 0.5) ||
    (img === 0 && textish === 0);
  if (!(isList && fishy)) return fishy;
  if (live(box.items).some((child) => live(child.items).length > 1)) return true;
  return img !== liCount;
}

/** Visits the boxes under `root` named `tag` in reverse document order (Readability removes from the end), with their ancestors. */
function cleanTag(root: Box, tag: string, test: (box: Box, ancestors: Box[]) => boolean): void {
  const ancestors: Box[] = [];
  const visit = (box: Box): void => {
    ancestors.push(box);
    const children = live(box.items);
    for (let i = children.length - 1; i >= 0; i -= 1) visit(children[i]);
    ancestors.pop();
    if (box !== root && box.name === tag && test(box, ancestors)) remove(box);
  };
  visit(root);
}

function eachBox(root: Box, visit: (box: Box) => void): void {
  for (const child of live(root.items)) {
    visit(child);
    eachBox(child, visit);
  }
}

/** Readability's _prepArticle on the picked boxes, from their counts. */
function prepare(article: Box, flags: Flags): void {
  eachBox(article, (box) => {
    if (box.name === 'table') box.dataTable = isDataTable(box);
  });
  // Data tables under a box: counted once marked.
  const countTables = (box: Box): number => {
    let tables = 0;
    for (const child of live(box.items)) tables += countTables(child);
    box.counts.dataTables = tables + (box.dataTable ? 1 : 0);
    return box.counts.dataTables;
  };
  countTables(article);
  const conditional = (tag: string): void => {
    if (flags.cleanConditionally) cleanTag(article, tag, (box, ancestors) => looksFishy(box, tag, ancestors, flags));
  };
  conditional('form');
  conditional('fieldset');
  eachBox(article, (box) => {
    if (ALWAYS_CLEANED.has(box.name)) remove(box);
  });
  for (const top of live(article.items)) {
    eachBox(top, (box) => {
      if (SHARE.test(marker(box.source)) && innerText(box).length < 500) remove(box);
    });
  }
  eachBox(article, (box) => {
    if ((box.name === 'h1' || box.name === 'h2') && classWeight(box, flags) < 0) remove(box);
  });
  conditional('table');
  conditional('ul');
  conditional('div');
  eachBox(article, (box) => {
    if (box.name === 'h1') box.name = 'h2';
  });
  cleanTag(article, 'p', (box) => box.counts.img === 0 && box.span.blank && !holdsEmbed(box));
  const dropBreaksBeforeParagraphs = (box: Box): void => {
    let next: Box | Text | null = null;
    for (let i = box.items.length - 1; i >= 0; i -= 1) {
      const item = box.items[i];
      if (isBox(item) && item.removed) continue;
      if (isBox(item) && item.name === 'br' && next && isBox(next) && next.name === 'p') item.removed = true;
      else if (isBox(item) || item.data.trim() !== '') next = item;
    }
  };
  dropBreaksBeforeParagraphs(article);
  eachBox(article, dropBreaksBeforeParagraphs);
  eachBox(article, unwrapSingleCell);
}

/** The one live child element of `box` when it is named `name` and no text beside it has words. */
function onlyChild(box: Box, name: string): Box | null {
  const elements = live(box.items);
  if (elements.length !== 1 || elements[0].name !== name) return null;
  return box.items.every((item) => isBox(item) || item.data.trim() === '') ? elements[0] : null;
}

/** Readability's last step: a table of one row of one cell is that cell, as a paragraph (only phrasing in it) or a div. */
function unwrapSingleCell(table: Box): void {
  if (table.name !== 'table' || !table.parent) return;
  const body = onlyChild(table, 'tbody') ?? table;
  const row = onlyChild(body, 'tr');
  const cell = row && onlyChild(row, 'td');
  if (!cell) return;
  cell.name = cell.items.every((item) => !isBox(item) || item.phrasing) ? 'p' : 'div';
  const parent = table.parent;
  parent.items[parent.items.indexOf(table)] = cell;
  cell.parent = parent;
}

function holdsEmbed(box: Box): boolean {
  return live(box.items).some((child) => ['embed', 'object', 'iframe'].includes(child.name) || holdsEmbed(child));
}

/** Copies the boxes back to parsed nodes, as Readability's clean-up leaves them (presentational attributes and `javascript:` links gone). */
function copy(item: Box | Text): AnyNode[] {
  if (!isBox(item)) return [new Text(item.data)];
  if (item.removed) return [];
  const children: AnyNode[] = [];
  for (const child of item.items) children.push(...copy(child));
  const attribs: Record<string, string> = {};
  if (item.source) {
    for (const [name, value] of Object.entries(item.source.attribs)) {
      if (PRESENTATIONAL.has(name) || (SIZED.has(item.name) && (name === 'width' || name === 'height'))) continue;
      attribs[name] = value;
    }
  }
  if (item.name === 'a' && attribs.href?.startsWith('javascript:')) {
    if (item.items.length === 1 && !isBox(item.items[0])) return [new Text(item.items[0].data)];
    return [element('span', {}, children)];
  }
  return [element(item.name, attribs, children)];
}

function element(name: string, attribs: Record<string, string>, children: AnyNode[]): Element {
  const made = new Element(name, attribs, children);
  children.forEach((child, index) => {
    child.parent = made;
    child.prev = children[index - 1] ?? null;
    child.next = children[index + 1] ?? null;
  });
  return made;
}

function attempt(body: ParentNode, title: string, bylineKnown: boolean, flags: Flags): { content: Element; length: number } {
  const context: Context = { flags, title, bylineTaken: bylineKnown, titleTaken: false, units: [], order: 0 };
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
  root.items = breaksToParagraphs(items, context).items;
  for (const item of root.items) if (isBox(item)) item.parent = root;
  finish(root);
  const top = scoreCandidates(context);
  const article = newBox('div', null, [], context);
  let pageWrapper: Box | null = null;
  if (top.length === 0 || top[0] === root) {
    pageWrapper = newBox('div', null, root.items, context);
    finish(pageWrapper);
    article.items = [pageWrapper];
  } else {
    const best = topCandidate(top, root, flags);
    article.items = withSiblings(best);
  }
  for (const item of article.items) if (isBox(item)) item.parent = article;
  finish(article);
  prepare(article, flags);
  const page = element('div', { class: 'page', id: 'readability-page-1' }, pageWrapper ? copy(pageWrapper).flatMap((node) => (node as Element).children) : article.items.flatMap(copy));
  const content = element('div', { id: 'readability-content' }, [page]);
  return { content, length: flatText(content).replace(/\s+/g, ' ').trim().length };
}

function simplified(content: Element): Element {
  simplifyNested(content);
  return content;
}

function isNested(node: AnyNode): node is Element {
  return node.type === 'tag' && (node.name === 'div' || node.name === 'section') && !(node.attribs.id ?? '').startsWith('readability');
}

/**
 * Readability's last pass over its article (_simplifyNestedElements): an empty div or section (blank
 * text, nothing but <br> and <hr>) goes, and one holding a single div or section and no words is that
 * child, with its attributes.
 */
function simplifyNested(parent: Element): void {
  for (let i = 0; i < parent.children.length; i += 1) {
    let node = parent.children[i];
    while (isNested(node)) {
      const elements = node.children.filter((child): child is Element => child.type === 'tag');
      const blank = node.children.every((child) => child.type !== 'text' || (child as Text).data.trim() === '');
      if (blank && elements.every((child) => child.name === 'br' || child.name === 'hr')) {
        parent.children.splice(i, 1);
        i -= 1;
        break;
      }
      if (!blank || elements.length !== 1 || !isNested(elements[0])) break;
      const child = elements[0];
      child.attribs = { ...child.attribs, ...node.attribs };
      child.parent = parent;
      parent.children[i] = child;
      node = child;
    }
    if (i >= 0 && parent.children[i] === node && node.type === 'tag') simplifyNested(node as Element);
  }
  parent.children.forEach((child, index) => {
    child.parent = parent;
    child.prev = parent.children[index - 1] ?? null;
    child.next = parent.children[index + 1] ?? null;
  });
}

/** Readability's minimum article (charThreshold in article.ts). */
const CHAR_THRESHOLD = 300;

/**
 * Readability's article on the parsed, furniture-stripped `body` (left as it is): its container
 * element, as Readability would give it, or null when nothing has text. `title`: the page's title,
 * whose duplicate heading goes; `bylineKnown`: the page's meta tags name the author (then no
 * byline element is taken out).
 */
export function scoredArticle(body: ParentNode, title: string, bylineKnown: boolean): Element | null {
  const flags: Flags = { stripUnlikely: true, weightClasses: true, cleanConditionally: true };
  const attempts: Array<{ content: Element; length: number }> = [];
  for (;;) {
    const result = attempt(body, title, bylineKnown, { ...flags });
    if (result.length >= CHAR_THRESHOLD) return simplified(result.content);
    attempts.push(result);
    if (flags.stripUnlikely) flags.stripUnlikely = false;
    else if (flags.weightClasses) flags.weightClasses = false;
    else if (flags.cleanConditionally) flags.cleanConditionally = false;
    else break;
  }
  const longest = attempts.reduce((best, next) => (next.length > best.length ? next : best));
  return longest.length > 0 ? simplified(longest.content) : null;
}
