import type { AnyNode, ParentNode } from 'domhandler';

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
