import { contentRoot } from './clean.js';
import type { AnyNode, Document, Element, Text } from 'domhandler';

const BLOCKS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'dd', 'details', 'div', 'dl', 'dt', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hr', 'li', 'main', 'nav', 'ol', 'p',
  'pre', 'section', 'summary', 'table', 'tbody', 'thead', 'tfoot', 'tr', 'ul', 'caption',
]);

/** Stand-ins that keep <pre> whitespace out of the whitespace clean-up. */
const PRE_SPACE = '\uE000';
const PRE_NEWLINE = '\uE001';

/** Collects text with paragraph breaks; recursion depth is bounded by CONTENT_LIMITS.maxDepth. */
class TextWriter {
  private readonly parts: string[] = [];

  write(node: AnyNode, inPre: boolean): void {
    if (node.type === 'text') {
      const data = (node as Text).data;
      this.parts.push(inPre ? data.replace(/[ \t]/g, PRE_SPACE).replace(/\n/g, PRE_NEWLINE) : data.replace(/\s+/g, ' '));
      return;
    }
    if (node.type !== 'tag' && node.type !== 'root') return;
    const element = node as Element;
    const name = element.name;
    if (name === 'br') return void this.parts.push('\n');
    // A picture gives no text, as in a browser's innerText: its alt text stands in for it only when it is not shown.
    if (name === 'img') return;
    const block = BLOCKS.has(name);
    const item = name === 'li' || name === 'tr' || name === 'dt' || name === 'dd';
    if (block) this.parts.push(item ? '\n' : '\n\n');
    if (name === 'li') this.parts.push('- ');
    if (name === 'td' || name === 'th') this.parts.push('\t');
    for (const child of element.children) this.write(child, inPre || name === 'pre');
    if (block && !item) this.parts.push('\n\n');
  }

  result(): string {
    // Spaces and tabs around each line break go, as do those at either end, which the final trim() takes.
    return this.parts
      .join('')
      .replace(/[ \t]*\n[ \t]*/g, '\n')
      .replace(/ {2,}/g, ' ')
      .replace(/\n{3,}/g, '\n\n')
      .replaceAll(PRE_SPACE, ' ')
      .replaceAll(PRE_NEWLINE, '\n')
      .trim();
  }
}

/** Readable plain text of the document body: one blank line between blocks, list items as `- `. */
export function toText(document: Document): string {
  const writer = new TextWriter();
  writer.write(contentRoot(document), false);
  return writer.result();
}
