import { api } from '../api.js';
import { badge, h, table, when } from '../dom.js';
import { act, section, type Page, type PageContext } from '../shell.js';
import { projectPicker } from './project-picker.js';

interface Job {
  id: string;
  name?: string;
  status: string;
  open?: boolean;
  total_items: number;
  progress: { total: number; completed: number; succeeded: number; failed: number; cancelled: number; skipped: number; percent_complete: number; credits_charged: number };
  submitted_at: string;
  finished_at?: string;
  environment?: string;
  error_message?: string;
}

const TERMINAL = ['completed', 'failed', 'cancelled'];

function progressBar(job: Job): HTMLElement {
  const bar = h('div', { class: 'progress-fill' });
  bar.style.width = `${job.progress.percent_complete}%`;
  return h('div', { class: 'progress', role: 'progressbar', 'aria-valuenow': job.progress.percent_complete, 'aria-valuemin': 0, 'aria-valuemax': 100 }, bar);
}

export const batchPage: Page = async (context) => (context.params[1] ? jobPage(context, context.params[0], context.params[1]) : listPage(context));

async function listPage({ org, navigate, every }: PageContext): Promise<HTMLElement> {
  const results = h('div', {});
  const errors = h('div', {});
  let projectId = '';
  const load = async () => {
    if (!projectId) return void results.replaceChildren(h('p', { class: 'empty' }, 'No project.'));
    const answer = await api<{ batches: Job[] }>('GET', `/orgs/${org.id}/projects/${projectId}/batch`);
    results.replaceChildren(
      table(
        ['Job', 'Status', 'Progress', 'Items', 'Credits', 'Submitted', ''],
        answer.batches.map((job) => [
          job.name ?? h('code', {}, job.id),
          badge(job.status),
          progressBar(job),
          `${job.progress.completed}/${job.progress.total}`,
          job.progress.credits_charged,
          when(job.submitted_at),
          h('a', { href: `#/o/${org.id}/batch/${projectId}/${job.id}` }, 'Open'),
        ]),
        'No batch jobs in this project. Submit one with POST /v1/batch.',
      ),
    );
  };
  const picker = await projectPicker(org, (id) => ((projectId = id), void act(errors, load)));
  projectId = picker.value;
  await load();
  every(2000, () => void load().catch(() => undefined));
  void navigate;
  return h('div', {}, h('h1', {}, 'Batch jobs'), section('Project', picker.element), errors, section('Jobs', results));
}

async function jobPage({ org, every }: PageContext, projectId: string, jobId: string): Promise<HTMLElement> {
  const path = `/orgs/${org.id}/projects/${projectId}/batch/${jobId}`;
  const body = h('div', {});
  const errors = h('div', {});
  const render = (job: Job) => {
    const control = (action: string, label: string, enabled: boolean) => {
      const button = h('button', { class: action === 'cancel' ? 'danger' : 'secondary', disabled: !enabled }, label);
      button.addEventListener('click', () => void act(errors, async () => render(await unwrap(await api('POST', `${path}/${action}`))), button));
      return button;
    };
    body.replaceChildren(
      h('h1', {}, 'Batch job ', h('code', {}, job.name ?? job.id)),
      section(
        'Progress',
        h('div', { class: 'row' }, h('span', {}, 'Status: '), h('span', { 'data-job-status': job.status }, badge(job.status))),
        progressBar(job),
        h('p', {}, `${job.progress.completed} of ${job.progress.total} done (${job.progress.percent_complete}%): ${job.progress.succeeded} succeeded, ${job.progress.failed} failed, ${job.progress.cancelled} cancelled, ${job.progress.skipped} skipped · ${job.progress.credits_charged} credits`),
        job.error_message ? h('p', { class: 'alert' }, job.error_message) : null,
        h(
          'div',
          { class: 'row' },
          control('cancel', 'Cancel', !TERMINAL.includes(job.status) && job.status !== 'cancelling'),
          control('retry', 'Retry failed', job.progress.failed > 0),
          control('close', 'Close', job.open === true),
          h('a', { class: 'button', href: `/api${path}/results`, download: `batch-${job.id}.ndjson` }, 'Download results'),
        ),
      ),
      section('Facts', h('p', { class: 'muted' }, `Environment ${job.environment ?? '—'} · submitted ${when(job.submitted_at)} · finished ${when(job.finished_at)}`)),
    );
  };
  const refresh = async () => render(await api<Job>('GET', path));
  await refresh();
  every(1000, () => void refresh().catch(() => undefined));
  return h('div', {}, h('p', {}, h('a', { href: `#/o/${org.id}/batch` }, '← Batch jobs')), errors, body);
}

/** retry answers { job, items_reset }; cancel and close answer the job itself. */
async function unwrap(answer: unknown): Promise<Job> {
  const value = answer as Job & { job?: Job };
  return value.job ?? value;
}
