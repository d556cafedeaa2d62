import { api } from './api.js';
import { badge, h, table } from './dom.js';
import { act } from './shell.js';

export interface ItemLine {
  seq: number;
  url: string;
  status: string;
  attempts: number;
  http_status?: number;
  request_id?: string;
  credits_micro: number;
  error?: { code: string; detail?: string; retryable: boolean };
  /** A crawl's page: the depth it was queued at, and the page it was found on (null: the start URL or a sitemap). */
  depth?: number;
  parent_url?: string | null;
}
interface ItemsPage {
  items: ItemLine[];
  next_cursor: string | null;
  limit: number;
}

const FILTERS: Array<[string, string]> = [
  ['', 'Every finished item'],
  ['succeeded', 'Succeeded'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
  ['skipped', 'Skipped'],
];

/**
 * A job's finished items, a page of the API's results at a time (`GET .../items`, the results route's
 * keyset cursor), filtered by status as the API offers. Previous pages are kept as the cursors that
 * opened them; `refresh` reloads the page shown (items appear as they finish).
 */
export function itemTable(orgId: string, jobPath: string, options: { crawl?: boolean } = {}): { element: HTMLElement; refresh(): Promise<void> } {
  const noun = options.crawl ? 'page' : 'item';
  const errors = h('div', {});
  const body = h('div', {});
  const status = h('select', { 'aria-label': 'Show items' }, FILTERS.map(([value, label]) => h('option', { value }, label)));
  const previous = h('button', { type: 'button', class: 'secondary small', disabled: true }, '← Previous');
  const next = h('button', { type: 'button', class: 'secondary small', disabled: true }, 'Next →');
  const where = h('span', { class: 'muted', 'data-items-page': '1' }, '');
  /** cursors[i] opens page i (null: the first). */
  let cursors: Array<string | null> = [null];
  let index = 0;

  const load = async () => {
    const search = new URLSearchParams();
    const cursor = cursors[index];
    if (cursor) search.set('cursor', cursor);
    if (status.value) search.set('status', status.value);
    const page = await api<ItemsPage>('GET', `${jobPath}/items${search.size > 0 ? `?${search}` : ''}`);
    // On a running job the API gives a cursor after every non-empty page; a short page has nothing after it yet.
    const hasNext = page.next_cursor !== null && page.items.length >= page.limit;
    cursors = cursors.slice(0, index + 1);
    if (hasNext) cursors.push(page.next_cursor);
    previous.disabled = index === 0;
    next.disabled = !hasNext;
    where.setAttribute('data-items-page', String(index + 1));
    where.textContent = page.items.length > 0 ? `Page ${index + 1}: ${noun}s ${page.items[0].seq + 1} to ${page.items[page.items.length - 1].seq + 1}` : `Page ${index + 1}`;
    const headers = ['Item', ...(options.crawl ? ['Depth'] : []), 'URL', ...(options.crawl ? ['Parent'] : []), 'Status', 'Target', 'Attempts', 'Error', 'Credits', 'Request'];
    body.replaceChildren(
      table(
        headers,
        page.items.map((item) => [
          // Items count from 1, the nth URL or object sent (seq counts from 0; blank lines are not items).
          String(item.seq + 1),
          ...(options.crawl ? [item.depth ?? '—'] : []),
          h('span', { class: 'url', title: item.url }, item.url),
          ...(options.crawl ? [foundOn(item)] : []),
          badge(item.status),
          item.http_status ?? '—',
          item.attempts,
          item.error ? h('span', { class: 'error-cell' }, h('code', {}, item.error.code), item.error.detail ? ` ${item.error.detail}` : '') : '',
          item.credits_micro / 1_000_000,
          item.request_id ? h('a', { href: `#/o/${orgId}/requests/${item.request_id}` }, 'log') : '—',
        ]),
        status.value ? `No ${status.value} ${noun} on this page.` : `No ${noun} has finished yet.`,
      ),
    );
  };
  // Not act()'s button handling: that would enable the button again after load() decided its state.
  const go = (to: number) => {
    index = to;
    previous.disabled = next.disabled = true;
    void act(errors, load);
  };
  previous.addEventListener('click', () => go(index - 1));
  next.addEventListener('click', () => go(index + 1));
  status.addEventListener('change', () => {
    cursors = [null];
    go(0);
  });
  const element = h(
    'div',
    { class: 'item-table' },
    h('div', { class: 'row' }, status, previous, next, where),
    errors,
    body,
    h('p', { class: 'muted' }, `${options.crawl ? 'Pages' : 'Items'} as they finish, 100 to a page, in the order they were queued; "Download results" has them all with their content.`),
  );
  return { element, refresh: load };
}

/** Where a crawl's page was found: the page linking to it (`parent_url`), else the start URL or a sitemap. */
function foundOn(item: ItemLine): HTMLElement {
  if (item.parent_url) return h('span', { class: 'url', title: item.parent_url, 'data-parent-url': item.parent_url }, item.parent_url);
  return h('span', { class: 'muted', 'data-parent-url': '' }, item.depth === 0 ? 'start URL' : item.depth === undefined ? '—' : 'sitemap');
}
