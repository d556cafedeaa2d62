import { Readability } from '@mozilla/readability';

export interface ReadabilityArticle {
  title: string;
  content: Element;
}


/** The value linkedom's `style.<property>` gives: the last non-empty declaration of that exact name. */
function declared(style: string, property: string): string {
  let value = '';
  for (const rule of style.split(/\s*;\s*/)) {
    const colon = rule.indexOf(':');
    if (colon < 0 || rule.slice(0, colon).trim() !== property) continue;
    const declaration = rule.slice(colon + 1).trim();
    if (declaration) value = declaration;
  }
  return value;
}

/** The parts of Readability 0.6 this module reaches into (see cheapChecks and restartFromParsedPage). */
interface ReadabilityInternals {
  REGEXPS: { byline: RegExp };
  PRESENTATIONAL_ATTRIBUTES: string[];
  DEPRECATED_SIZE_ATTRIBUTE_ELEMS: string[];
  _cleanStyles(element: Element): void;
  _isProbablyVisible(node: Element): boolean;
  _isValidByline(node: Element, matchString: string): boolean;
  _getAllNodesWithTag(node: ParentNode, tagNames: string[]): ArrayLike<Element>;
  _unwrapNoscriptImages(document: Document): void;
  _removeScripts(document: Document): void;
  _prepDocument(): void;
  _fixRelativeUris(content: Element): void;
  _grabArticle(page?: Element): Element | null;
}

const INTERNALS = ['_cleanStyles', '_isProbablyVisible', '_isValidByline', '_getAllNodesWithTag', '_unwrapNoscriptImages', '_removeScripts', '_prepDocument', '_fixRelativeUris', '_grabArticle'] as const;

/** Another version of Readability may lack them: then it runs as it comes, only slower. */
function hasInternals(reader: object): reader is ReadabilityInternals {
  const candidate = reader as Partial<Record<(typeof INTERNALS)[number], unknown>> & { REGEXPS?: { byline?: unknown } };
  const lists = reader as { PRESENTATIONAL_ATTRIBUTES?: unknown; DEPRECATED_SIZE_ATTRIBUTE_ELEMS?: unknown };
  return (
    INTERNALS.every((name) => typeof candidate[name] === 'function') &&
    candidate.REGEXPS?.byline instanceof RegExp &&
    Array.isArray(lists.PRESENTATIONAL_ATTRIBUTES) &&
    Array.isArray(lists.DEPRECATED_SIZE_ATTRIBUTE_ELEMS)
  );
}

/** linkedom's links from a node to the next one in document order and from a parent to its end marker. */
interface Links {
  next: symbol;
  end: symbol;
}

/** A linkedom node as its links see it. */
interface Linked {
  nodeType: number;
  localName: string;
  [link: symbol]: Linked;
}

let linkSymbols: Links | null | undefined;

/** The links of linkedom's nodes, found once by their names; null on a DOM without them (then a walk of children). */
function linksOf(root: ParentNode): Links | null {
  if (linkSymbols !== undefined) return linkSymbols;
  const symbols = Object.getOwnPropertySymbols(root);
  const next = symbols.find((symbol) => symbol.description === 'next');
  const end = symbols.find((symbol) => symbol.description === 'end');
  linkSymbols = next && end ? { next, end } : null;
  return linkSymbols;
}

/**
 * Elements under `root` named one of `names` in document order, as linkedom's querySelectorAll of
 * those names gives them (names in any case; a template's content is not searched), by a walk:
 * linkedom compiles the selector again on each of Readability's many calls.
 */
function elementsWithTag(root: ParentNode, names: string[]): ArrayLike<Element> {
  // One name: linkedom's own walk, which in an HTML document matches names in upper case whatever
  // case they were made in. (It would search a template's content: the pre-cleaned page has none.)
  if (names.length === 1) return (root as Element).getElementsByTagName(names[0].toUpperCase());
  const wanted = new Set(names.map((name) => name.toLowerCase()));
  const found: Element[] = [];
  const links = linksOf(root);
  if (links) {
    // linkedom keeps a subtree as one list in document order, from the node to its end marker.
    const end = (root as unknown as Linked)[links.end];
    for (let node = (root as unknown as Linked)[links.next]; node !== end; node = node[links.next]) {
      if (node.nodeType !== 1) continue;
      const name = node.localName.toLowerCase();
      if (wanted.has(name)) found.push(node as unknown as Element);
      if (name === 'template') node = node[links.end];
    }
    return found;
  }
  const visit = (parent: ParentNode): void => {
    for (let child = parent.firstElementChild; child; child = child.nextElementSibling) {
      const name = child.localName.toLowerCase();
      if (wanted.has(name)) found.push(child);
      if (name !== 'template') visit(child);
    }
  };
  visit(root);
  return found;
}

/**
 * Readability runs two checks on every element of the page. On linkedom, reading `style` builds a
 * CSS declaration object per element, and the byline check reads the text under every element
 * before looking whether it could be a byline at all: together a tenth of the scoring's time.
 * These give the same answers from the attributes, and read the text only of byline candidates.
 * Its element lists by tag name come from a walk (elementsWithTag).
 */
function cheapChecks(reader: ReadabilityInternals): void {
  reader._getAllNodesWithTag = elementsWithTag;
  reader._isProbablyVisible = (node) => {
    const style = node.getAttribute('style');
    if (style !== null && (declared(style, 'display') === 'none' || declared(style, 'visibility') === 'hidden')) return false;
    if (node.hasAttribute('hidden')) return false;
    return node.getAttribute('aria-hidden') !== 'true' || node.className.includes('fallback-image');
  };
  reader._isValidByline = (node, matchString) => {
    const itemprop = node.getAttribute('itemprop');
    const candidate = node.getAttribute('rel') === 'author' || (itemprop !== null && itemprop.includes('author')) || reader.REGEXPS.byline.test(matchString);
    if (!candidate) return false;
    const length = (node.textContent ?? '').trim().length;
    return length > 0 && length < 100;
  };
}

/**
 * Readability's clean-up of presentational attributes asks every element of its pick to remove each
 * of twelve names (fourteen on tables, cells, rules and pre), a walk of the element's attributes per
 * name; most elements have none of them, and many no attributes at all. This removes the same ones,
 * looking only at the attributes there are.
 */
function cheapStyleCleaning(reader: ReadabilityInternals): void {
  const presentational = new Set(reader.PRESENTATIONAL_ATTRIBUTES);
  const sized = new Set(reader.DEPRECATED_SIZE_ATTRIBUTE_ELEMS);
  const clean = (element: Element): void => {
    if (element.tagName.toLowerCase() === 'svg') return;
    if (element.hasAttributes()) {
      const withSize = sized.has(element.tagName);
      for (const name of element.getAttributeNames()) {
        if (presentational.has(name) || (withSize && (name === 'width' || name === 'height'))) element.removeAttribute(name);
      }
    }
    for (let child = element.firstElementChild; child !== null; child = child.nextElementSibling) clean(child);
  };
  reader._cleanStyles = (element) => {
    if (element) clean(element);
  };
}

/** Readability's replacement of a `javascript:` link: its text alone, or its children in a span. */
function unlink(document: Document, link: Element): void {
  const only = link.childNodes.length === 1 ? link.childNodes[0] : null;
  if (only?.nodeType === 3) return void link.parentNode?.replaceChild(document.createTextNode(link.textContent ?? ''), link);
  const container = document.createElement('span');
  while (link.firstChild) container.appendChild(link.firstChild);
  link.parentNode?.replaceChild(container, link);
}

/**
 * Readability resolves every link and picture of its pick against the document's base URI. The
 * document built here has none (the base element is page furniture, gone before the copy), so each
 * resolution fails, by a thrown error, and keeps the URL as it is (the page's URLs were made absolute
 * when it was loaded): a sixth of the pick's time on a small page. Only `javascript:` links change,
 * as Readability changes them; with a base URI, Readability's own resolution runs.
 */
function keepUrls(reader: ReadabilityInternals, document: Document): void {
  const resolve = reader._fixRelativeUris.bind(reader);
  reader._fixRelativeUris = (content) => {
    if (document.baseURI !== null) return resolve(content);
    for (const link of Array.from(reader._getAllNodesWithTag(content, ['a']))) {
      if (link.getAttribute('href')?.startsWith('javascript:')) unlink(document, link);
    }
  };
}

/**
 * Readability writes its pick's markup into a debug line as soon as it has it, debugging or not: a
 * serialisation of the article nobody reads. Its pick answers that one read with nothing; every
 * later reader (the copy out of linkedom) reads the element after `forget`.
 */
function skipDebugMarkup(reader: ReadabilityInternals): () => void {
  const grab = reader._grabArticle.bind(reader);
  let picked: Element | null = null;
  reader._grabArticle = (page) => {
    picked = grab(page);
    if (picked) Object.defineProperty(picked, 'innerHTML', { configurable: true, get: () => '' });
    return picked;
  };
  return () => void (picked && Reflect.deleteProperty(picked, 'innerHTML'));
}

/** The markup linkedom would give for `innerHTML` on any element (an accessor of its prototype chain). */
function nativeInnerHtml(element: Element): PropertyDescriptor | undefined {
  for (let proto: object | null = Object.getPrototypeOf(element); proto; proto = Object.getPrototypeOf(proto)) {
    const descriptor = Object.getOwnPropertyDescriptor(proto, 'innerHTML');
    if (descriptor) return descriptor;
  }
  return undefined;
}

/**
 * Readability keeps the body's markup before scoring, to start again from it with laxer flags when
 * its pick is too short: it serialises the whole page on every run for the few runs that start
 * again. The body hands it a placeholder instead; to start again, the body is refilled from the
 * parsed page (`refill`) and prepared as Readability prepared it, then goes through the same
 * serialise-and-parse round trip, so the second run sees what it saw before. Undone afterwards.
 */
function restartFromParsedPage(reader: ReadabilityInternals, document: Document, refill: () => void): () => void {
  const body = document.body;
  const native = nativeInnerHtml(body);
  if (!native?.get || !native.set) return () => undefined;
  const { get, set } = native;
  const placeholder = '<!-- the page as parsed -->';
  const restart = (): void => {
    refill();
    reader._unwrapNoscriptImages(document);
    reader._removeScripts(document);
    reader._prepDocument();
    set.call(body, get.call(body));
  };
  Object.defineProperty(body, 'innerHTML', {
    configurable: true,
    get: () => placeholder,
    set: (html: string) => (html === placeholder ? restart() : set.call(body, html)),
  });
  return () => void Reflect.deleteProperty(body, 'innerHTML');
}

/**
 * Mozilla Readability's scoring on the pre-cleaned page; null when it finds nothing or fails.
 * `refill` puts the pre-cleaned page back in the document's body.
 */
export function readabilityArticle(document: Document, refill: () => void): ReadabilityArticle | null {
  let undo = (): void => undefined;
  try {
    const reader = new Readability<Element>(document, {
      // No element count of its own: it would walk the whole document on every page for a bound the
      // caller's (READABILITY_BOUNDS, 20,000 elements in the body) already keeps, and on linkedom the
      // count it takes (elements named "*") is always 0.
      maxElemsToParse: 0,
      keepClasses: true,
      charThreshold: 300,
      disableJSONLD: true,
      serializer: (node) => node as Element,
    });
    if (hasInternals(reader)) {
      cheapChecks(reader);
      cheapStyleCleaning(reader);
      keepUrls(reader, document);
      const forget = skipDebugMarkup(reader);
      const refilled = restartFromParsedPage(reader, document, refill);
      undo = () => {
        forget();
        refilled();
      };
    }
    const article = reader.parse();
    if (!article?.content) return null;
    return { title: (article.title ?? '').trim(), content: article.content };
  } catch {
    return null;
  } finally {
    undo();
  }
}
