import { contentRoot } from './clean.js';
import { collapseWhitespace, isSpace } from './whitespace.js';
import type { AnyNode, Document, Element, Text } from 'domhandler';

const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
]);

/** U+E000 and U+E001 (private use) in a page read as a space and a line break, as when they stood in for <pre> whitespace here. */
const STAND_INS = /[\uE000\uE001]/g;

/**
 * Collects text with paragraph breaks, tidying the whitespace between pieces as it goes: spaces and
 * tabs around a line break go, a run of spaces is one, at most one blank line in a row, none at
 * either end; <pre> text is kept as it is. Recursion depth is bounded by CONTENT_LIMITS.maxDepth.
 */
class TextWriter {
  private readonly parts: string[] = [];
  /** Line breaks since the last text written. */
  private breaks = 0;
  /** Spaces and tabs since the last text written, a run of spaces as one (counts only without breaks). */
  private blank = '';

  write(node: AnyNode, inPre: boolean): void {
    if (node.type === 'text') {
      const data = (node as Text).data;
      // <pre> keeps its whitespace, its tabs as spaces.
      if (inPre) this.text(data.replace(/\t/g, ' '));
      else this.spacedText(data);
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const element = node as Element;
    const name = element.name;
    if (name === 'br') return void (this.breaks += 1);
    // A picture gives no text, as in a browser's innerText: its alt text stands in for it only when it is not shown.
    if (name === 'img') return;
    const block = BLOCKS.has(name);
    const item = name === 'li' || name === 'tr' || name === 'dt' || name === 'dd';
    if (block) this.breaks += item ? 1 : 2;
    if (name === 'li') {
      this.text('-');
      this.space(' ');
    }
    if (name === 'td' || name === 'th') this.space('\t');
    const children = element.children;
    for (let index = 0; index < children.length; index += 1) this.write(children[index], inPre || name === 'pre');
    if (block && !item) this.breaks += 2;
  }

  /** Text outside <pre>: each run of whitespace is one space. */
  private spacedText(data: string): void {
    const trimmed = data.trim();
    if (trimmed.length !== data.length && isSpace(data.charCodeAt(0))) this.space(' ');
    if (trimmed === '') return;
    this.text(collapseWhitespace(trimmed));
    if (isSpace(data.charCodeAt(data.length - 1))) this.space(' ');
  }

  private space(char: ' ' | '\t'): void {
    if (char === ' ' && this.blank.endsWith(' ')) return;
    this.blank += char;
  }

  /** Text that starts and ends with no whitespace the writer tidies. */
  private text(text: string): void {
    if (text === '') return;
    if (this.parts.length > 0) {
      if (this.breaks > 0) this.parts.push(this.breaks === 1 ? '\n' : '\n\n');
      else if (this.blank !== '') this.parts.push(this.blank);
    }
    this.breaks = 0;
    this.blank = '';
    this.parts.push(text.replace(STAND_INS, (char) => (char === '\uE001' ? '\n' : ' ')));
  }

  result(): string {
    return this.parts.join('').trim();
  }
}

/** Readable plain text of the document body: one blank line between blocks, list items as `- `. */
export function toText(document: Document): string {
  const writer = new TextWriter();
  writer.write(contentRoot(document), false);
  return writer.result();
}
