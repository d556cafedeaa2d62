/** Pages built to hurt a content pipeline; generated rather than stored (one is 20 MB). */
export function deeplyNestedPage(depth = 50_000): string {
  return `<html><body><main><p>Before the pit.</p>${'<div>'.repeat(depth)}deep text${'</div>'.repeat(depth)}<p>After the pit.</p></main></body></html>`;
}

export function hugePage(megabytes = 20): string {
  const row = '<tr><td>cell</td><td><a href="/row">row link</a></td><td><span class="x">value</span></td></tr>\n';
  const rows = row.repeat(Math.ceil((megabytes * 1024 * 1024) / row.length));
  return `<html><body><main><h1>Huge</h1><table>${rows}</table></main></body></html>`;
}

/** Wide page where nested :has selectors would be quadratic or worse. */
export function widePage(items = 5_000): string {
  return `<html><body><main>${'<div class="a"><span class="b">x</span></div>'.repeat(items)}</main></body></html>`;
}

export const PATHOLOGICAL_SELECTORS = [
  'div:has(div:has(div:has(div)))',
  ':not(:not(:not(:not(div))))',
  Array.from({ length: 40 }, (_, i) => `.c${i}`).join(', '),
  `${'div '.repeat(200)}span`,
];
