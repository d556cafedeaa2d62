import type { AnyNode, Element } from 'domhandler';

/**
 * The DOM turndown walks, built straight from the parsed (htmlparser2) nodes: the selected content
 * is not serialised and parsed a second time (by domino, turndown's parser), which cost about half
 * of the markdown writer's time.
 *
 * It must be the tree domino would build from the serialised nodes, so that the markdown stays the
 * same byte for byte. That holds for trees the HTML parsing rules would not rebuild; `markdownDom`
 * gives null for any node those rules could move, close, rename or read as raw text (a block inside
 * an open `p`, a link inside a link, a stray table part, `<svg>`, `<select>` ...), and the caller
 * then takes the serialising road. The checks are deliberately wider than the rules: a tree they
 * refuse only costs the old price. What the parser does change on trees it keeps is done here too:
 * CR and CRLF become LF, the newline right after `<pre>` goes, neighbouring text nodes are one, a
 * `tr` straight under `table` gets its `tbody`.
 */

/** Raw-text, foreign, form-control and document-level elements the parser treats in ways of its own. */
const REFUSED = new Set([
  'html', 'head', 'body', 'frameset', 'frame', 'title', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript',
  'plaintext', 'listing', 'select', 'option', 'optgroup', 'datalist', 'math', 'svg', 'image', 'rb', 'rp', 'rt', 'rtc',
  'template', 'script', 'style', 'base', 'basefont', 'bgsound', 'link', 'meta', 'isindex', 'keygen', 'menuitem', 'command',
]);

/** Start tags that close an open `p` (the parsing rules' list, and `table` whatever the document's mode). */
const CLOSES_P = new Set([
  'address', 'article', 'aside', 'blockquote', 'center', 'details', 'dialog', 'dir', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'header', 'hgroup', 'main', 'menu', 'nav', 'ol', 'p', 'search', 'section', 'summary', 'ul',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'pre', 'form', 'li', 'dd', 'dt', 'hr', 'table',
]);

const HEADINGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);

/** Elements the parser never gives children (htmlparser2's and the HTML standard's lists together). */
const VOID = new Set([
  'area', 'base', 'basefont', 'bgsound', 'br', 'col', 'command', 'embed', 'frame', 'hr', 'image', 'img', 'input', 'isindex',
  'keygen', 'link', 'menuitem', 'meta', 'param', 'source', 'track', 'wbr',
]);

/** The parent each table part must have to stay where it is. */
const TABLE_PARENTS = new Map<string, ReadonlySet<string>>([
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
const TABLE_CHILDREN = new Map<string, ReadonlySet<string>>([
  ['table', new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot', 'tr'])],
  ['thead', new Set(['tr'])],
  ['tbody', new Set(['tr'])],
  ['tfoot', new Set(['tr'])],
  ['tr', new Set(['td', 'th'])],
  ['colgroup', new Set(['col'])],
]);

const TABLE_SECTIONS = new Set(['caption', 'colgroup', 'thead', 'tbody', 'tfoot']);
const ASCII_NAME = /^[a-z][\x21-\x7e]*$/;
const WHITESPACE_ONLY = /^[ \t\n\f\r]*$/;

/** Table parts, whose tags the parser ignores outside tables (their content stays where they stood). */
const TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);

/** Open elements that change how the parser reads a start tag (conservatively: never reset by a scope boundary). */
interface Context {
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

class Refused extends Error {}

function refuse(): never {
  throw new Refused();
}

abstract class DomNode {
  parentNode: DomElement | null = null;
  previousSibling: DomNode | null = null;
  nextSibling: DomNode | null = null;
  // Set by turndown as it walks.
  isBlock = false;
  isCode = false;
  isBlank = false;
  flankingWhitespace: unknown = null;
  abstract readonly nodeType: number;
  abstract readonly nodeName: string;
  abstract readonly textContent: string;

  get parentElement(): DomElement | null {
    return this.parentNode;
  }

  get nextElementSibling(): DomElement | null {
    let node = this.nextSibling;
    while (node && !(node instanceof DomElement)) node = node.nextSibling;
    return node;
  }

  get previousElementSibling(): DomElement | null {
    let node = this.previousSibling;
    while (node && !(node instanceof DomElement)) node = node.previousSibling;
    return node;
  }

  /** turndown copies its input before it changes it; this tree is made for one conversion. */
  cloneNode(): this {
    return this;
  }
}

class DomCharacterData extends DomNode {
  constructor(
    readonly nodeType: 3 | 8,
    private value: string,
  ) {
    super();
  }

  get nodeName(): string {
    return this.nodeType === 3 ? '#text' : '#comment';
  }

  get data(): string {
    return this.value;
  }

  set data(value: string) {
    this.value = value;
    this.parentNode?.textChanged();
  }

  get nodeValue(): string {
    return this.value;
  }

  get textContent(): string {
    return this.value;
  }
}

class DomElement extends DomNode {
  readonly nodeType = 1;
  readonly nodeName: string;
  firstChild: DomNode | null = null;
  lastChild: DomNode | null = null;
  /** Text of the subtree, kept until it changes (turndown reads it for every node). */
  private text: string | null = null;
  private elementChildren: DomElement[] | null = null;

  constructor(
    readonly localName: string,
    private readonly attributes: Record<string, string>,
  ) {
    super();
    this.nodeName = localName.toUpperCase();
  }

  append(child: DomNode): void {
    child.parentNode = this;
    child.previousSibling = this.lastChild;
    if (this.lastChild) this.lastChild.nextSibling = child;
    else this.firstChild = child;
    this.lastChild = child;
  }

  removeChild(child: DomNode): DomNode {
    if (child.previousSibling) child.previousSibling.nextSibling = child.nextSibling;
    else this.firstChild = child.nextSibling;
    if (child.nextSibling) child.nextSibling.previousSibling = child.previousSibling;
    else this.lastChild = child.previousSibling;
    child.parentNode = null;
    child.previousSibling = null;
    child.nextSibling = null;
    this.elementChildren = null;
    this.textChanged();
    return child;
  }

  /** Forgets the kept text here and above (a subtree's text is kept only where its parts' texts are). */
  textChanged(): void {
    for (let node: DomElement | null = this; node && node.text !== null; node = node.parentNode) node.text = null;
  }

  get textContent(): string {
    if (this.text === null) {
      let text = '';
      for (let child = this.firstChild; child; child = child.nextSibling) if (child.nodeType !== 8) text += child.textContent;
      this.text = text;
    }
    return this.text;
  }

  get childNodes(): DomNode[] {
    const nodes: DomNode[] = [];
    for (let child = this.firstChild; child; child = child.nextSibling) nodes.push(child);
    return nodes;
  }

  get children(): DomElement[] {
    if (this.elementChildren === null) {
      this.elementChildren = [];
      for (let child = this.firstChild; child; child = child.nextSibling) if (child instanceof DomElement) this.elementChildren.push(child);
    }
    return this.elementChildren;
  }

  get firstElementChild(): DomElement | null {
    return this.children[0] ?? null;
  }

  get lastElementChild(): DomElement | null {
    const children = this.children;
    return children[children.length - 1] ?? null;
  }

  getAttribute(name: string): string | null {
    return this.attributes[name.toLowerCase()] ?? null;
  }

  hasAttribute(name: string): boolean {
    return this.getAttribute(name) !== null;
  }

  /** Descendants named `name` (any case), in document order. */
  getElementsByTagName(name: string): DomElement[] {
    const wanted = name.toLowerCase();
    const found: DomElement[] = [];
    const visit = (parent: DomElement): void => {
      for (let child = parent.firstChild; child; child = child.nextSibling) {
        if (!(child instanceof DomElement)) continue;
        if (child.localName === wanted) found.push(child);
        visit(child);
      }
    };
    visit(this);
    return found;
  }
}

function normaliseNewlines(value: string): string {
  if (value.includes('\0')) refuse();
  return value.includes('\r') ? value.replace(/\r\n?/g, '\n') : value;
}

function attributesOf(element: Element): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const [name, value] of Object.entries(element.attribs)) attributes[name] = normaliseNewlines(value);
  // turndown's GFM task-list rule reads `type` and `checked` as DOM properties, which only some elements reflect.
  if ((attributes.type ?? '').toLowerCase().includes('checkbox') || (attributes.role ?? '').toLowerCase().includes('checkbox')) refuse();
  return attributes;
}

function checkPlace(name: string, parent: string, context: Context): void {
  if (!ASCII_NAME.test(name) || REFUSED.has(name)) refuse();
  const tableParents = TABLE_PARENTS.get(name);
  if (tableParents ? !tableParents.has(parent) : TABLE_CHILDREN.has(parent)) refuse();
  if (context.p && CLOSES_P.has(name)) refuse();
  if ((name === 'li' && context.li) || ((name === 'dd' || name === 'dt') && context.definition)) refuse();
  if ((name === 'a' && context.link) || (HEADINGS.has(name) && context.heading)) refuse();
  if ((name === 'form' && context.form) || (name === 'button' && context.button) || (name === 'nobr' && context.nobr)) refuse();
}

function inner(name: string, context: Context): Context {
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

/** A `p` cut short by a block that closes it, and the empty `p` its end tag then makes. */
interface CutParagraph {
  cut: Element;
  children: AnyNode[];
}
const EMPTY_P = 'empty p';
type Item = AnyNode | CutParagraph | typeof EMPTY_P;

/**
 * The nodes as the parser meets their markup: outside tables, a table part's tags are dropped and
 * its content stays; a `p` whose child is a block (Readability makes such) ends at that block, the
 * rest follows it as siblings, and the `</p>` then left over makes an empty `p`.
 */
function parsedOrder(nodes: AnyNode[], context: Context, items: Item[] = []): Item[] {
  for (const node of nodes) {
    if (node.type === 'tag' && !context.table && TABLE_PARTS.has(node.name)) {
      parsedOrder(node.children, context, items);
      continue;
    }
    const block = node.type === 'tag' && node.name === 'p' && !context.p ? node.children.findIndex((child) => child.type === 'tag' && CLOSES_P.has(child.name)) : -1;
    if (block < 0) {
      items.push(node);
      continue;
    }
    const paragraph = node as Element;
    items.push({ cut: paragraph, children: paragraph.children.slice(0, block) });
    parsedOrder(paragraph.children.slice(block), context, items);
    items.push(EMPTY_P);
  }
  return items;
}

/** Appends copies of `nodes` to `parent` (named `parentName` in the parsed tree). */
function copyChildren(parent: DomElement, parentName: string, nodes: AnyNode[], context: Context): void {
  let text = '';
  let tbody: DomElement | null = null;
  let first = true;
  const flushText = (): void => {
    if (text === '') return;
    if (TABLE_CHILDREN.has(parentName) && !WHITESPACE_ONLY.test(text)) refuse();
    // The parser drops the newline that opens a `pre`.
    if (first && parentName === 'pre' && text.startsWith('\n')) text = text.slice(1);
    if (text !== '') (tbody ?? parent).append(new DomCharacterData(3, text));
    first = false;
    text = '';
  };
  for (const item of parsedOrder(nodes, context)) {
    if (item === EMPTY_P || 'cut' in item) {
      flushText();
      first = false;
      checkPlace('p', parentName, context);
      const paragraph = new DomElement('p', item === EMPTY_P ? {} : attributesOf(item.cut));
      (tbody ?? parent).append(paragraph);
      if (item !== EMPTY_P) copyChildren(paragraph, 'p', item.children, inner('p', context));
      continue;
    }
    const node = item;
    if (node.type === 'text') {
      text += normaliseNewlines(node.data);
      continue;
    }
    flushText();
    first = false;
    if (node.type === 'comment') {
      if (/-->|--!>|^-?>/.test(node.data)) refuse();
      (tbody ?? parent).append(new DomCharacterData(8, node.data));
      continue;
    }
    if (node.type !== 'tag') refuse();
    const name = node.name;
    checkPlace(name, parentName, context);
    if (VOID.has(name) && node.children.length > 0) refuse();
    // A row straight under the table goes into a tbody of the parser's making, with what follows it up to the next section.
    if (parentName === 'table' && TABLE_SECTIONS.has(name)) tbody = null;
    else if (parentName === 'table' && name === 'tr' && !tbody) {
      tbody = new DomElement('tbody', {});
      parent.append(tbody);
    }
    const element = new DomElement(name, attributesOf(node));
    (tbody ?? parent).append(element);
    copyChildren(element, name, node.children, inner(name, context));
  }
  flushText();
}

const OUTSIDE: Context = { table: false, p: false, li: false, definition: false, link: false, heading: false, form: false, button: false, nobr: false };

/**
 * turndown's root element over copies of `nodes`, as turndown would build it from their markup, or
 * null when the HTML parsing rules could build another tree from that markup.
 */
export function markdownDom(nodes: AnyNode[]): HTMLElement | null {
  const root = new DomElement('x-turndown', { id: 'turndown-root' });
  try {
    copyChildren(root, 'x-turndown', nodes, OUTSIDE);
  } catch (error) {
    if (error instanceof Refused) return null;
    throw error;
  }
  return root as unknown as HTMLElement;
}
