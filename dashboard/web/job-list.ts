import { api } from './api.js';
import { badge, h, table, when } from './dom.js';
import { act, section, type PageContext } from './shell.js';
import { projectPicker } from './pages/project-picker.js';

type Cell = Parameters<typeof table>[1][number][number];

/** A batch job as the dashboard reads it (the API's job object, docs/batch.md); a crawl is one too. */
export interface Job {
  id: string;
  /** `crawl` for a crawl's job (docs/crawl.md), else `batch`. */
  kind?: 'batch' | 'crawl';
  name?: string;
  status: string;
  open?: boolean;
  total_items: number;
  progress: { total: number; completed: number; succeeded: number; failed: number; cancelled: number; skipped: number; percent_complete: number; credits_charged: number };
  submitted_at: string;
  finished_at?: string;
  environment?: string;
  error_message?: string;
  params?: Record<string, unknown>;
  estimated_credits?: number;
}
export const TERMINAL = ['completed', 'failed', 'cancelled'];

/** What a row of a job list needs. */
export type ListedJob = Pick<Job, 'id' | 'name' | 'kind' | 'status' | 'progress' | 'submitted_at'>;

/**
 * Of the finished share: green for the items that succeeded, red for those that failed, grey for those
 * cancelled or skipped. A job with failures, or a cancelled one, is never all green.
 */
export function progressBar(job: Pick<Job, 'progress'>): HTMLElement {
  const { succeeded, failed, cancelled, skipped } = job.progress;
  const classes = ['progress-fill', failed > 0 ? 'has-failed' : '', cancelled + skipped > 0 ? 'has-stopped' : ''].filter(Boolean).join(' ');
  const bar = h('div', { class: classes });
  bar.style.width = `${job.progress.percent_complete}%`;
  const finished = succeeded + failed + cancelled + skipped;
  if (finished > 0) {
    bar.style.setProperty('--ok-share', `${(succeeded * 100) / finished}%`);
    bar.style.setProperty('--failed-end', `${((succeeded + failed) * 100) / finished}%`);
  }
  return h('div', { class: 'progress', role: 'progressbar', 'aria-valuenow': job.progress.percent_complete, 'aria-valuemin': 0, 'aria-valuemax': 100 }, bar);
}

/** "completed" with failed items says so, in amber, instead of a plain green "completed". */
export function statusBadge(job: Pick<Job, 'status' | 'progress'>): HTMLElement {
  if (job.status === 'completed' && job.progress.failed > 0) return badge(`completed, ${job.progress.failed} failed`, 'completed_with_errors');
  return badge(job.status);
}

/** retry answers { job, items_reset }; cancel and close answer the job itself. */
export async function unwrap(answer: unknown): Promise<Job> {
  const value = answer as Job & { job?: Job };
  return value.job ?? value;
}

/** The head of a job's Progress section: its status, bar and counts (`noun`: what its items are, or none). */
export function progressLines(job: Job, noun = ''): HTMLElement[] {
  const { completed, total, percent_complete, succeeded, failed, cancelled, skipped, credits_charged } = job.progress;
  return [
    h('div', { class: 'row' }, h('span', {}, 'Status: '), h('span', { 'data-job-status': job.status }, statusBadge(job))),
    progressBar(job),
    h('p', {}, `${completed} of ${total}${noun ? ` ${noun}` : ''} done (${percent_complete}%): ${succeeded} succeeded, ${failed} failed, ${cancelled} cancelled, ${skipped} skipped · ${credits_charged} credits`),
  ];
}

/** A job control: posts `${jobPath}/${action}` (the dashboard's batch routes) and hands `after` the job it answers; errors land in `errors`. */
export function jobControl(errors: HTMLElement, jobPath: string, action: 'cancel' | 'retry' | 'close', label: string, enabled: boolean, after: (job: Job) => unknown): HTMLButtonElement {
  const button = h('button', { class: action === 'cancel' ? 'danger' : 'secondary', disabled: !enabled }, label);
  button.addEventListener('click', () => void act(errors, async () => void (await after(await unwrap(await api('POST', `${jobPath}/${action}`)))), button));
  return button;
}

/** Whether a job in this state can still be cancelled. */
export const cancellable = (job: Pick<Job, 'status'>) => !TERMINAL.includes(job.status) && job.status !== 'cancelling';

/** The dashboard page of a job: a crawl's opens its crawl page. */
export function jobHref(orgId: string, projectId: string, job: Pick<Job, 'id' | 'kind'>): string {
  return `#/o/${orgId}/${job.kind === 'crawl' ? 'crawl' : 'batch'}/${projectId}/${job.id}`;
}

export interface JobListOptions<T extends ListedJob> {
  /** One project's rows, and a note under the table when there is more to say. */
  read(projectId: string): Promise<{ rows: T[]; note?: string }>;
  /** Headers of the first column (the job's name) and of the finished/total count. */
  noun: string;
  count: string;
  /** The first column; default the name, else the id. */
  name?(row: T): Cell;
  /** Columns between the name and the status. */
  extra?: Array<[header: string, cell: (row: T) => Cell]>;
  /** Said when the project has none. */
  empty: string;
}

/**
 * A project's jobs (the Batch jobs and Crawls pages): the project picker, and the list table (name,
 * status, progress, finished/total, credits, submission, a link to the job's page), read again every
 * two seconds while the page is shown. `projectId()` is the project picked.
 */
export async function jobList<T extends ListedJob>({ org, every }: PageContext, options: JobListOptions<T>): Promise<{ picker: HTMLElement; errors: HTMLElement; list: HTMLElement; projectId(): string }> {
  const list = h('div', {});
  const errors = h('div', {});
  let projectId = '';
  const extra = options.extra ?? [];
  const load = async () => {
    if (!projectId) return void list.replaceChildren(h('p', { class: 'empty' }, 'No project.'));
    const { rows, note } = await options.read(projectId);
    list.replaceChildren(
      table(
        [options.noun, ...extra.map(([header]) => header), 'Status', 'Progress', options.count, 'Credits', 'Submitted', ''],
        rows.map((row) => [
          options.name ? options.name(row) : (row.name ?? h('code', {}, row.id)),
          ...extra.map(([, cell]) => cell(row)),
          statusBadge(row),
          progressBar(row),
          `${row.progress.completed}/${row.progress.total}`,
          row.progress.credits_charged,
          when(row.submitted_at),
          h('a', { href: jobHref(org.id, projectId, row) }, 'Open'),
        ]),
        options.empty,
      ),
      note ? h('p', { class: 'muted' }, note) : '',
    );
  };
  const picker = await projectPicker(org, (id) => ((projectId = id), void act(errors, load)));
  projectId = picker.value;
  await load();
  every(2000, () => void load().catch(() => undefined));
  return { picker: section('Project', picker.element), errors, list, projectId: () => projectId };
}
