import type { AnyNode, Document, ParentNode } from 'domhandler';

const HTML_NAMESPACE = 'http://www.w3.org/1999/xhtml';

/**
 * cheerio writes markup with parse5's serializer, which knows void and raw-text elements only in the
 * HTML namespace; htmlparser2 gives its elements none. Unmarked, a `<br>` is written `<br></br>`, which
 * any HTML parser reads as two line breaks, and script and style text gets escaped. Marks every
 * element under `roots` as HTML, except `template`: parse5 would then look for its content in a
 * fragment that htmlparser2 does not make. Iterative: parsed pages can be deep.
 */
export function markHtmlNamespace(roots: AnyNode[]): void {
  const stack: AnyNode[] = [...roots];
  while (stack.length > 0) {
    const node = stack.pop() as AnyNode;
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      if (node.name !== 'template' && node.namespace === undefined) node.namespace = HTML_NAMESPACE;
    }
    if ('children' in node) stack.push(...(node as ParentNode).children);
  }
}

/**
 * parse5's serializer writes a doctype from its `x-name`, which htmlparser2's directive node lacks:
 * unnamed, `<!DOCTYPE html>` comes out as `<!DOCTYPE >`. Names each top-level doctype from its text.
 */
export function nameDoctypes(document: Document): void {
  for (const node of document.children) {
    if (node.type !== 'directive' || node.name !== '!doctype' || 'x-name' in node) continue;
    const name = /^!doctype\s+([^\s>]+)/i.exec(node.data)?.[1] ?? 'html';
    Object.assign(node, { 'x-name': name.toLowerCase() });
  }
}
