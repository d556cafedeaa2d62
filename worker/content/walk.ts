import type { AnyNode, Element, ParentNode } from 'domhandler';

export function isElement(node: AnyNode): node is Element {
  return node.type === 'tag' || node.type === 'script' || node.type === 'style';
}

/**
 * Elements under `root` for which `take` holds, in document order, found in one walk without
 * recursion and without a selector engine; the walk does not enter an element `enter` refuses,
 * and stops after `limit` finds.
 */
export function findElements(root: ParentNode, take: (element: Element) => boolean, enter: (element: Element) => boolean = () => true, limit = Infinity): Element[] {
  const found: Element[] = [];
  const stack: Element[] = [];
  pushElements(stack, root.children);
  while (stack.length > 0 && found.length < limit) {
    const element = stack.pop() as Element;
    if (take(element)) found.push(element);
    if (enter(element)) pushElements(stack, element.children);
  }
  return found;
}

/** Pushes the elements among `children` last first, so they pop in document order. */
function pushElements(stack: Element[], children: AnyNode[]): void {
  for (let i = children.length - 1; i >= 0; i -= 1) {
    const child = children[i];
    if (isElement(child)) stack.push(child);
  }
}

/** Gives `parent` the children `kept` (a subset of its children, in order), with their sibling links. */
export function setChildren(parent: ParentNode, kept: AnyNode[]): void {
  for (let index = 0; index < parent.children.length; index += 1) parent.children[index].parent = null;
  parent.children = kept;
  for (let index = 0; index < kept.length; index += 1) {
    const child = kept[index];
    child.parent = parent;
    child.prev = kept[index - 1] ?? null;
    child.next = kept[index + 1] ?? null;
  }
}

/** Removes every element matching `remove` under `root`, in one walk. */
export function removeElements(root: ParentNode, remove: (element: Element) => boolean): void {
  const stack: ParentNode[] = [root];
  while (stack.length > 0) {
    const parent = stack.pop() as ParentNode;
    // Made at the first removal: most parents lose no child.
    let kept: AnyNode[] | null = null;
    const children = parent.children;
    for (let index = 0; index < children.length; index += 1) {
      const child = children[index];
      if (isElement(child) && remove(child)) kept ??= children.slice(0, index);
      else kept?.push(child);
    }
    if (kept) setChildren(parent, kept);
    for (let index = 0; index < parent.children.length; index += 1) {
      const child = parent.children[index];
      if (isElement(child)) stack.push(child);
    }
  }
}

/**
 * Gives `parent` the children `nodes`, each taken out of the tree it was in, as cheerio's
 * `empty().append(nodes)` does (the same links on every node it touches, so the answers stay the same).
 */
export function replaceChildren(parent: ParentNode, nodes: AnyNode[]): void {
  for (const child of parent.children) child.next = child.prev = child.parent = null;
  parent.children.length = 0;
  const added = [...nodes];
  added.forEach((node, index) => {
    const old = node.parent;
    if (old) {
      const at = old.children.indexOf(node);
      if (at !== -1) old.children.splice(at, 1);
    }
    node.parent = parent;
    if (node.prev) node.prev.next = node.next ?? null;
    if (node.next) node.next.prev = node.prev ?? null;
    node.prev = index === 0 ? null : added[index - 1];
    node.next = index === added.length - 1 ? null : added[index + 1];
  });
  parent.children.push(...added);
}
