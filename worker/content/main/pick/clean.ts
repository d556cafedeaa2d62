import type { Text } from 'domhandler';
import { addCounts, HEADINGS, TEXTISH, innerText, isBox, linkDensity, type Box, type Flags } from './box.js';
import { isBlank } from './text-span.js';
import { classWeight, marker } from './weights.js';

/* Readability's word lists, as it has them. */
const SHARE = /(\b|_)(share|sharedaddy)(\b|_)/i;
const AD_WORDS = /^(ad(vertising|vertisement)?|pub(licité)?|werb(ung)?|广告|Реклама|Anuncio)$/iu;
const LOADING_WORDS = /^((loading|正在加载|Загрузка|chargement|cargando)(…|\.\.\.)?)$/iu;
const ALWAYS_CLEANED = new Set(['object', 'embed', 'footer', 'link', 'aside', 'iframe', 'input', 'textarea', 'select', 'button']);

/** Marks `box` removed and takes its counts off its ancestors. */
function remove(box: Box): void {
  box.removed = true;
  for (let node = box.parent; node; node = node.parent) addCounts(node.counts, box.counts, -1);
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
    for (let i = box.items.length - 1; i >= 0; i -= 1) {
      const item = box.items[i];
      if (isBox(item) && !item.removed) visit(item);
    }
    ancestors.pop();
    if (box !== root && box.name === tag && test(box, ancestors)) remove(box);
  };
  visit(root);
}

/** Visits the live boxes under `root` in document order (a box removed by `visit` is still entered). */
function eachBox(root: Box, visit: (box: Box) => void): void {
  for (const item of root.items) {
    if (!isBox(item) || item.removed) continue;
    visit(item);
    eachBox(item, visit);
  }
}

/** Readability's _prepArticle on the picked boxes, from their counts. */
export function prepare(article: Box, flags: Flags): void {
  eachBox(article, (box) => {
    if (box.name === 'table') box.dataTable = isDataTable(box);
  });
  // Data tables under a box: counted once marked.
  const countTables = (box: Box): number => {
    let tables = box.dataTable ? 1 : 0;
    for (const child of box.items) if (isBox(child) && !child.removed) tables += countTables(child);
    box.counts.dataTables = tables;
    return tables;
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
      else if (isBox(item) || !isBlank(item.data)) next = item;
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
  return box.items.every((item) => isBox(item) || isBlank(item.data)) ? elements[0] : null;
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
