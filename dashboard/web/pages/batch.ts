import { api } from '../api.js';
import { badge, copyButton, field, h, when } from '../dom.js';
import { itemTable } from '../item-table.js';
import { cancellable, jobControl, jobList, progressLines, TERMINAL, type Job } from '../job-list.js';
import { act, section, type Page, type PageContext } from '../shell.js';

export const batchPage: Page = async (context) => (context.params[1] ? jobPage(context, context.params[0], context.params[1]) : listPage(context));

async function listPage(context: PageContext): Promise<HTMLElement> {
  const { org, navigate } = context;
  const jobs = await jobList(context, {
    read: async (projectId) => ({ rows: (await api<{ batches: Job[] }>('GET', `/orgs/${org.id}/projects/${projectId}/batch`)).batches }),
    noun: 'Job',
    count: 'Items',
    // A crawl is a batch job: marked, and its row opens the crawl page.
    name: (job) => h('span', {}, job.name ?? h('code', {}, job.id), job.kind === 'crawl' ? [' ', badge('crawl', 'test')] : null),
    empty: 'No batch jobs in this project yet: start one above, or with POST /v1/batch or `trawler batch run`.',
  });
  return h('div', {}, h('h1', {}, 'Batch jobs'), jobs.picker, jobs.errors, newBatch(org, jobs.projectId, navigate), section('Jobs', jobs.list));
}

async function jobPage({ org, every }: PageContext, projectId: string, jobId: string): Promise<HTMLElement> {
  const path = `/orgs/${org.id}/projects/${projectId}/batch/${jobId}`;
  const body = h('div', {});
  const errors = h('div', {});
  const render = (job: Job) => {
    const control = (action: 'cancel' | 'retry' | 'close', label: string, enabled: boolean) => jobControl(errors, path, action, label, enabled, render);
    body.replaceChildren(
      h('h1', {}, 'Batch job ', h('code', {}, job.name ?? job.id)),
      h('p', { class: 'inline-code' }, 'Job id ', h('code', { 'data-job-id': job.id }, job.id), copyButton(() => job.id, 'Copy id')),
      section(
        'Progress',
        ...progressLines(job),
        job.error_message ? h('p', { class: 'alert' }, job.error_message) : null,
        h(
          'div',
          { class: 'row' },
          control('cancel', 'Cancel', cancellable(job)),
          control('retry', 'Retry failed', job.progress.failed > 0),
          control('close', 'Close', job.open === true),
          h('a', { class: 'button', href: `/api${path}/results`, download: `batch-${job.id}.ndjson` }, 'Download results'),
        ),
      ),
      section(
        'Facts',
        h('p', { class: 'muted' }, `Environment ${job.environment ?? '—'} · submitted ${when(job.submitted_at)} · finished ${when(job.finished_at)}`),
        heldNote(job),
      ),
      section('Parameters', h('pre', { class: 'preview-text' }, JSON.stringify(job.params ?? {}, null, 2))),
      section('Items', items.element),
    );
  };
  const items = itemTable(org.id, path);
  let shownFinished = -1;
  const loadItems = async (job: Job) => {
    if (job.progress.completed === shownFinished) return;
    shownFinished = job.progress.completed;
    await items.refresh();
  };
  const refresh = async () => {
    const job = await api<Job>('GET', path);
    render(job);
    await loadItems(job);
  };
  await refresh();
  every(1000, () => void refresh().catch(() => undefined));
  return h('div', {}, h('p', {}, h('a', { href: `#/o/${org.id}/batch` }, '← Batch jobs')), errors, body);
}

function heldNote(job: Job): HTMLElement | null {
  const unpaid = job.progress.failed + job.progress.cancelled + job.progress.skipped;
  if (TERMINAL.includes(job.status)) {
    if (unpaid === 0) return null;
    // docs/batch.md: such holds go back after BATCH_HOLD_RETURN_DELAY_MS, so a retry soon after reuses them.
    const which = unpaid === 1 ? 'The hold of the 1 item that failed, was cancelled or skipped goes' : `The holds of the ${unpaid} items that failed, were cancelled or skipped go`;
    return h('p', { class: 'muted' }, `${which} back to the allowance about a minute after it ended (BATCH_HOLD_RETURN_DELAY_MS); until then it shows as "reserved" on the Usage page, never charged.`);
  }
  return h(
    'p',
    { class: 'muted' },
    `While it runs, each unfinished item holds its dearest price (estimated ${job.estimated_credits ?? '—'} credits at submission): these show as "reserved" on the Usage page and are released as items finish; only what the answer says is charged (${job.progress.credits_charged} so far).`,
  );
}

/** Start a batch from pasted lines or an uploaded file: one URL, or one JSON item object, per line. */
function newBatch(org: PageContext['org'], projectId: () => string, navigate: (hash: string) => void): HTMLElement {
  const errors = h('div', {});
  const lines = h('textarea', { rows: 6, placeholder: 'https://example.com/\nhttps://example.org/\n{"url": "https://example.net/", "js_render": true}' });
  const upload = h('input', { type: 'file', accept: '.txt,.csv,.ndjson,.jsonl,text/plain' });
  upload.addEventListener('change', () => {
    const file = upload.files?.[0];
    if (file) void file.text().then((text) => (lines.value = text));
  });
  const name = h('input', { type: 'text', maxlength: 200 });
  const environment = h('select', {}, h('option', { value: 'live' }, 'live'), h('option', { value: 'test' }, 'test'));
  const params = h('textarea', { rows: 2, placeholder: '{"response_format": "markdown"}' });
  const submit = h('button', { type: 'submit' }, 'Start batch');
  const form = h(
    'form',
    {},
    field('URLs or items, one per line', lines, 'Paste, or choose a file below. Up to 10,000 lines here; for more, `trawler batch run FILE` splits the input into appends.'),
    h('div', { class: 'row' }, field('File', upload), field('Job name', name), field('Environment', environment)),
    field('Job-wide parameters (JSON, optional)', params, 'Any scrape parameter except url; each line may override them.'),
    submit,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      errors,
      async () => {
        const body = { environment: environment.value, ...(name.value.trim() ? { name: name.value.trim() } : {}), ...parseLines(lines.value), params: params.value.trim() ? parseJson(params.value, 'Job-wide parameters') : {} };
        const job = await api<Job>('POST', `/orgs/${org.id}/projects/${projectId()}/batch`, body);
        navigate(`#/o/${org.id}/batch/${projectId()}/${job.id}`);
      },
      submit,
    );
  });
  return section('New batch', form, errors);
}

function parseLines(text: string): { urls: string[] } | { items: Array<Record<string, unknown>> } {
  const rows = text.split(/\r?\n/).map((line) => line.trim());
  const filled = rows.map((line, index) => ({ line, number: index + 1 })).filter(({ line }) => line !== '');
  if (filled.length === 0) throw new Error('Paste at least one URL, or choose a file.');
  if (filled.length > 10_000) throw new Error(`${filled.length} lines: at most 10,000 per batch here; \`trawler batch run FILE\` sends more as appends to one job.`);
  if (filled.every(({ line }) => !line.startsWith('{'))) return { urls: filled.map(({ line }) => line) };
  return { items: filled.map(({ line, number }) => (line.startsWith('{') ? (parseJson(line, `Line ${number}`) as Record<string, unknown>) : { url: line })) };
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${what}: not JSON (${(error as Error).message})`);
  }
}
