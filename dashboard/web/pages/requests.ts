import { api } from '../api.js';
import { badge, field, h, table, when } from '../dom.js';
import { act, section, type Page, type PageContext } from '../shell.js';

interface Entry {
  id: string;
  created_at: string;
  project_id: string;
  engine: string | null;
  status: string;
  http_status: number | null;
  error_code: string | null;
  error_detail: string | null;
  url: string | null;
  attempts: number;
  credits_micro: number;
  spans: Record<string, number | null>;
  proxy: Record<string, unknown>;
  bytes_in: number;
  bytes_out: number;
  proxy_bytes: number;
  blocked: unknown;
  features: Record<string, unknown>;
}
interface ListAnswer {
  data: Entry[];
  has_more: boolean;
  next?: { before: string; before_id: string };
}

const STATUSES = ['', 'success', 'failed', 'timeout', 'blocked', 'rejected', 'cancelled'];

export const requestsPage: Page = async (context) => (context.params[0] ? detail(context, context.params[0]) : list(context));

async function list({ org }: PageContext): Promise<HTMLElement> {
  const { projects } = await api<{ projects: Array<{ id: string; name: string }> }>('GET', `/orgs/${org.id}/projects`);
  const project = h('select', {}, h('option', { value: '' }, 'All projects'), projects.map((p) => h('option', { value: p.id }, p.name)));
  const status = h('select', {}, STATUSES.map((s) => h('option', { value: s }, s || 'Any status')));
  const errorsOnly = h('input', { type: 'checkbox', id: 'errors-only' });
  const results = h('div', {});
  const errors = h('div', {});
  const pages: Array<ListAnswer['next'] | undefined> = [undefined];

  const load = async () => {
    const search = new URLSearchParams({ limit: '25' });
    if (project.value) search.set('project_id', project.value);
    if (status.value) search.set('status', status.value);
    if (errorsOnly.checked) search.set('errors_only', 'true');
    const cursor = pages.at(-1);
    if (cursor) {
      search.set('before', cursor.before);
      search.set('before_id', cursor.before_id);
    }
    const answer = await api<ListAnswer>('GET', `/orgs/${org.id}/requests?${search}`);
    const newer = h('button', { class: 'secondary', disabled: pages.length <= 1 }, '← Newer');
    const older = h('button', { class: 'secondary', disabled: !answer.has_more }, 'Older →');
    newer.addEventListener('click', () => void act(errors, async () => (pages.pop(), load())));
    older.addEventListener('click', () => void act(errors, async () => (pages.push(answer.next), load())));
    results.replaceChildren(
      table(
        ['Time', 'Status', 'HTTP', 'Engine', 'URL', 'Credits', ''],
        answer.data.map((e) => [
          when(e.created_at),
          badge(e.status),
          e.http_status ?? '—',
          e.engine ?? '—',
          h('span', { class: 'url' }, e.url ?? '—'),
          e.credits_micro / 1_000_000,
          h('a', { href: `#/o/${org.id}/requests/${e.id}` }, 'Details'),
        ]),
        'No requests in the retention window match.',
      ),
      h('div', { class: 'row' }, newer, older),
    );
  };
  const refilter = () => void act(errors, async () => (pages.splice(1), load()));
  for (const control of [project, status, errorsOnly]) control.addEventListener('change', refilter);
  await load();
  return h(
    'div',
    {},
    h('h1', {}, 'Request log'),
    section('Filters', h('div', { class: 'row' }, field('Project', project), field('Status', status), h('label', { class: 'check' }, errorsOnly, ' Errors only'))),
    errors,
    section('Requests', results),
  );
}

async function detail({ org }: PageContext, id: string): Promise<HTMLElement> {
  const entry = await api<Entry>('GET', `/orgs/${org.id}/requests/${id}`);
  const facts = (rows: Array<[string, unknown]>) =>
    h('dl', { class: 'facts' }, rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null || v === undefined ? '—' : typeof v === 'object' ? JSON.stringify(v) : String(v))]));
  const order = ['admission_ms', 'queue_ms', 'dispatch_ms', 'worker_ms', 'engine_ms', 'upstream_ms', 'extract_ms', 'total_ms'];
  const spans = Object.entries(entry.spans).sort(([a], [b]) => order.indexOf(a) - order.indexOf(b));
  const total = Number(entry.spans.total_ms) || 1;
  return h(
    'div',
    {},
    h('p', {}, h('a', { href: `#/o/${org.id}/requests` }, '← Request log')),
    h('h1', {}, 'Request ', h('code', {}, entry.id)),
    section('Summary', facts([['Time', when(entry.created_at)], ['Status', entry.status], ['HTTP status', entry.http_status], ['URL', entry.url], ['Engine', entry.engine], ['Attempts', entry.attempts], ['Error', entry.error_code ? `${entry.error_code}: ${entry.error_detail ?? ''}` : null], ['Project', entry.project_id]])),
    section(
      'Spans',
      h(
        'div',
        { class: 'spans' },
        spans.map(([name, ms]) => {
          const bar = h('span', { class: 'span-bar' });
          bar.style.width = `${Math.max(1, Math.round(((Number(ms) || 0) / total) * 100))}%`;
          return h('div', { class: 'span-row' }, h('span', { class: 'span-name' }, name), h('span', { class: 'span-track' }, bar), h('span', {}, ms === null ? '—' : `${ms} ms`));
        }),
      ),
    ),
    section('Proxy', facts(Object.entries(entry.proxy))),
    section('Billing', facts([['Credits charged', entry.credits_micro / 1_000_000], ['Bytes in', entry.bytes_in], ['Bytes out', entry.bytes_out], ['Proxy bytes', entry.proxy_bytes], ['Blocked', entry.blocked], ['Features', entry.features]])),
  );
}
