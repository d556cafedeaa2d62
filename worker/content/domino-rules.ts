/**
 * Where the HTML parsing rules (domino's, turndown's parser) would build another tree from a
 * node's markup than the node itself: a block inside an open `p`, a link inside a link, a table part
 * out of its table, raw-text and foreign elements. checkPlace refuses such a node; markdown-dom.ts
 * then takes the serialising road. Deliberately wider than the rules: a refusal only costs the old price.
 */

/** Raw-text, foreign, form-control and document-level elements the parser treats in ways of its own. */
const REFUSED = new Set([
  'html', 'head', 'body', 'frameset', 'frame', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript',
  'plaintext', 'listing', 'select', 'option', 'optgroup', 'datalist', 'math', 'svg', 'image', 'rb', 'rp', 'rt', 'rtc',
  'template', 'script', 'style', 'base', 'basefont', 'bgsound', 'link', 'meta', 'isindex', 'keygen', 'menuitem', 'command',
]);

/** Start tags that close an open `p` (the parsing rules' list, and `table` whatever the document's mode). */
export const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section', 'summary', 'ul',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'form', 'li', 'dd', 'dt', 'hr', 'table',
]);

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Elements the parser never gives children (htmlparser2's and the HTML standard's lists together). */
export const VOID = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'image', 'img', 'input', 'isindex',
  'keygen', 'link', 'menuitem', 'meta', 'param', 'source', 'track', 'wbr',
]);

/** The parent each table part must have to stay where it is. */
export const TABLE_PARENTS = new Map<string, ReadonlySet<string>>([
  ['caption', new Set(['table'])],
  ['colgroup', new Set(['table'])],
  ['thead', new Set(['table'])],
  ['tbody', new Set(['table'])],
  ['tfoot', new Set(['table'])],
  ['tr', new Set(['table', 'thead', 'tbody', 'tfoot'])],
  ['td', new Set(['tr'])],
  ['th', new Set(['tr'])],
  ['col', new Set(['colgroup'])],
]);

/** The children each table container may have (besides whitespace text and comments). */
export const TABLE_CHILDREN = new Map<string, ReadonlySet<string>>([
  ['table', new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot', 'tr'])],
  ['thead', new Set(['tr'])],
  ['tbody', new Set(['tr'])],
  ['tfoot', new Set(['tr'])],
  ['tr', new Set(['td', 'th'])],
  ['colgroup', new Set(['col'])],
]);

export const TABLE_SECTIONS = new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot']);
const ASCII_NAME = /^[a-z][\x21-\x7e]*$/;
export const WHITESPACE_ONLY = /^[ \t\n\f\r]*$/;

/** Table parts, whose tags the parser ignores outside tables (their content stays where they stood). */
export const TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);

/** Open elements that change how the parser reads a start tag (conservatively: never reset by a scope boundary). */
export interface Context {
  table: boolean;
  p: boolean;
  li: boolean;
  definition: boolean;
  link: boolean;
  heading: boolean;
  form: boolean;
  button: boolean;
  nobr: boolean;
}

export class Refused extends Error {}

export function refuse(): never {
  throw new Refused();
}

export function checkPlace(name: string, parent: string, context: Context): void {
  if (!ASCII_NAME.test(name) || REFUSED.has(name)) refuse();
  const tableParents = TABLE_PARENTS.get(name);
  if (tableParents ? !tableParents.has(parent) : TABLE_CHILDREN.has(parent)) refuse();
  if (context.p && CLOSES_P.has(name)) refuse();
  if ((name === 'li' && context.li) || ((name === 'dd' || name === 'dt') && context.definition)) refuse();
  if ((name === 'a' && context.link) || (HEADINGS.has(name) && context.heading)) refuse();
  if ((name === 'form' && context.form) || (name === 'button' && context.button) || (name === 'nobr' && context.nobr)) refuse();
}

export function inner(name: string, context: Context): Context {
  return {
    table: context.table || name === 'table',
    p: context.p || name === 'p',
    li: name === 'li' || (context.li && name !== 'ul' && name !== 'ol' && name !== 'menu'),
    definition: name === 'dd' || name === 'dt' || (context.definition && name !== 'dl'),
    link: context.link || name === 'a',
    heading: context.heading || HEADINGS.has(name),
    form: context.form || name === 'form',
    button: context.button || name === 'button',
    nobr: context.nobr || name === 'nobr',
  };
}

export const OUTSIDE: Context = { table: false, p: false, li: false, definition: false, link: false, heading: false, form: false, button: false, nobr: false };
