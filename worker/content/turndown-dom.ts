/**
 * The little of the DOM that turndown reads, over nodes built by markdown-dom.ts: parents, siblings,
 * children, attributes and text (kept per element until it changes, since turndown reads it for
 * every node). Made for one conversion: cloneNode gives the node itself.
 */
/** Shared by every childless element: turndown only reads it (frozen, so a write would throw rather than reach every element). */
const NO_NODES = Object.freeze([]) as unknown as DomNode[];
/** Given for every name no descendant has (frozen, as NO_NODES). */
const NO_ELEMENTS = Object.freeze([]) as unknown as DomElement[];

export abstract class DomNode {
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

export class DomCharacterData extends DomNode {
  constructor(private value: string) {
    super();
  }

  get nodeType(): 3 {
    return 3;
  }

  get nodeName(): string {
    return '#text';
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

const MAX_NAMES_KEPT = 512;
const upperCaseNames = new Map<string, string>();

/** An element's name as its nodeName, one string per name rather than one per element. */
function upperCase(localName: string): string {
  let name = upperCaseNames.get(localName);
  if (name === undefined) {
    // Pages of made-up element names must not grow this without end.
    if (upperCaseNames.size >= MAX_NAMES_KEPT) upperCaseNames.clear();
    upperCaseNames.set(localName, (name = localName.toUpperCase()));
  }
  return name;
}

export class DomElement extends DomNode {
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
    this.nodeName = upperCase(localName);
  }

  get nodeType(): 1 {
    return 1;
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
      for (let child = this.firstChild; child; child = child.nextSibling) text += child.textContent;
      this.text = text;
    }
    return this.text;
  }

  /** turndown reads each element's children once, as an array; it is made at its final length. */
  get childNodes(): DomNode[] {
    let count = 0;
    for (let child = this.firstChild; child; child = child.nextSibling) count++;
    if (count === 0) return NO_NODES;
    const nodes = new Array<DomNode>(count);
    let i = 0;
    for (let child = this.firstChild; child; child = child.nextSibling) nodes[i++] = child;
    return nodes;
  }

  get children(): DomElement[] {
    if (this.elementChildren === null) {
      let count = 0;
      for (let child = this.firstChild; child; child = child.nextSibling) if (child instanceof DomElement) count++;
      const children = new Array<DomElement>(count);
      let i = 0;
      for (let child = this.firstChild; child; child = child.nextSibling) if (child instanceof DomElement) children[i++] = child;
      this.elementChildren = children;
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

  /** Descendants named `name` (any case), in document order (turndown asks blank elements for sixteen names, mostly in vain). */
  getElementsByTagName(name: string): DomElement[] {
    return descendantsNamed(this, name.toLowerCase(), null) ?? NO_ELEMENTS;
  }
}

function descendantsNamed(parent: DomElement, localName: string, found: DomElement[] | null): DomElement[] | null {
  for (let child = parent.firstChild; child; child = child.nextSibling) {
    if (!(child instanceof DomElement)) continue;
    if (child.localName === localName) (found ??= []).push(child);
    found = descendantsNamed(child, localName, found);
  }
  return found;
}
