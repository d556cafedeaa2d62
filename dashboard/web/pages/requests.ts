import { api } from '../api.js';
import { badge, codeBlock, copyButton, field, h, table, when } from '../dom.js';
import { act, section, type Page, type PageContext } from '../shell.js';
import { curlSnippet, type Params } from '../snippets.js';
import { gatewayUrl, type PlaygroundInfo } from './playground.js';

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
  project_name?: string | null;
  key?: { id: string; name: string; display_prefix: string; environment: string } | null;
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
  const urlSearch = h('input', { type: 'search', placeholder: 'part of a URL', size: 28 });
  const show = h('select', {}, h('option', { value: 'scrapes' }, 'Scrapes and failed calls'), h('option', { value: 'all' }, 'Every call (batch reads too)'));
  const results = h('div', {});
  const errors = h('div', {});
  const pages: Array<ListAnswer['next'] | undefined> = [undefined];

  const load = async () => {
    const search = new URLSearchParams({ limit: '25' });
    if (project.value) search.set('project_id', project.value);
    if (status.value) search.set('status', status.value);
    if (errorsOnly.checked) search.set('errors_only', 'true');
    if (urlSearch.value.trim()) search.set('url', urlSearch.value.trim());
    search.set('show', show.value);
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
        ['Time', 'Outcome', 'Trawler', 'Target', 'Engine', 'URL or call', 'Error', 'Credits', ''],
        answer.data.map((e) => [
          when(e.created_at),
          badge(e.status),
          answerStatus(e),
          h('span', { title: "The target site's HTTP status" }, e.http_status ?? '—'),
          e.engine ?? '—',
          h('span', { class: 'url', title: e.url ?? '' }, callOf(e)),
          e.error_code ? h('span', { class: 'error-cell', title: e.error_detail ?? '' }, h('code', {}, e.error_code), e.error_detail ? ` ${shorten(e.error_detail, 70)}` : '') : '',
          e.credits_micro / 1_000_000,
          h('a', { href: `#/o/${org.id}/requests/${e.id}` }, 'Details'),
        ]),
        'No requests in the retention window match.',
      ),
      h('div', { class: 'row' }, newer, older),
    );
  };
  const refilter = () => void act(errors, async () => (pages.splice(1), load()));
  for (const control of [project, status, errorsOnly, show]) control.addEventListener('change', refilter);
  urlSearch.addEventListener('input', refilter);
  await load();
  return h(
    'div',
    {},
    h('h1', {}, 'Request log'),
    section(
      'Filters',
      h('div', { class: 'row' }, field('Project', project), field('Status', status), field('Search by URL', urlSearch), field('Show', show), h('label', { class: 'check' }, errorsOnly, ' Errors only')),
      h('p', { class: 'muted' }, '"Trawler" is the status this service answered; "Target" is the status the scraped site answered (— when no site was reached, e.g. a refused request).'),
    ),
    errors,
    section('Requests', results),
  );
}

async function detail({ org }: PageContext, id: string): Promise<HTMLElement> {
  const [entry, info] = await Promise.all([api<Entry>('GET', `/orgs/${org.id}/requests/${id}`), api<PlaygroundInfo>('GET', `/orgs/${org.id}/playground`)]);
  const replay = entry.url ? curlSnippet(gatewayUrl(info), recordedParams(entry)) : null;
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
    section(
      'Summary',
      facts([
        ['Time', when(entry.created_at)],
        ['Outcome', entry.status],
        ["Trawler's status", entry.features.answer_status ?? null],
        ["Target's status", entry.http_status],
        ['URL', entry.url ?? callOf(entry)],
        ['Engine', entry.engine],
        ['Attempts', entry.attempts],
        ['Error', entry.error_code ? `${entry.error_code}: ${entry.error_detail ?? ''}` : null],
        ['Project', entry.project_name ? `${entry.project_name} (${entry.project_id})` : entry.project_id],
        ['Key', entry.key ? `${entry.key.name} · ${entry.key.environment} · ${entry.key.display_prefix}…` : null],
      ]),
      h('div', { class: 'row' }, copyButton(() => entry.id, 'Copy request id'), replay ? copyButton(() => replay, 'Copy as curl') : null),
    ),
    replay ? section('Replay', h('p', { class: 'muted' }, 'The parameters the log records (URL, method, format, engine flags); headers, extraction rules and actions are not recorded.'), codeBlock(replay, 'Copy curl')) : null,
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

/** A call that scraped nothing (a batch read, usage...) is named by its route instead of "—". */
function callOf(entry: Entry): string {
  if (entry.url) return entry.url;
  const { method, route } = entry.features;
  return typeof route === 'string' ? `${typeof method === 'string' ? method : ''} ${route}`.trim() : '—';
}

function answerStatus(entry: Entry): string {
  const status = entry.features.answer_status;
  return typeof status === 'number' ? String(status) : '—';
}

function shorten(text: string, length: number): string {
  return text.length > length ? `${text.slice(0, length - 1)}…` : text;
}

/** The scrape parameters the log records (gateway/scrape/log-entry.ts featuresOf), for "copy as curl". */
const RECORDED: Array<[string, (value: unknown) => unknown]> = [
  ['method', (v) => (v === 'GET' ? undefined : v)],
  ['response_format', (v) => (v === 'html' ? undefined : v)],
  ['mode', (v) => v ?? undefined],
  ['js_render', (v) => (v === true ? true : undefined)],
  ['impersonate', (v) => (v === true ? true : undefined)],
  ['screenshot', (v) => (v === true ? true : undefined)],
  ['autoparse', (v) => (v === true ? true : undefined)],
  ['links', (v) => (v === true ? true : undefined)],
];

function recordedParams(entry: Entry): Params {
  const params: Params = { url: entry.url };
  for (const [name, keep] of RECORDED) {
    const value = keep(entry.features[name]);
    if (value !== undefined && value !== null) params[name] = value;
  }
  if (entry.engine && !entry.features.mode) params.engine = entry.engine;
  return params;
}
