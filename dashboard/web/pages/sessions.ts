import { api } from '../api.js';
import { badge, h, table, when } from '../dom.js';
import { act, section, type Page } from '../shell.js';
import { projectPicker } from './project-picker.js';

interface Session {
  id: string;
  engine: string;
  status: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
}

export const sessionsPage: Page = async ({ org }) => {
  const results = h('div', {});
  const errors = h('div', {});
  let projectId = '';
  const load = async () => {
    if (!projectId) return void results.replaceChildren(h('p', { class: 'empty' }, 'No project.'));
    const { sessions } = await api<{ sessions: Session[] }>('GET', `/orgs/${org.id}/projects/${projectId}/sessions`);
    results.replaceChildren(
      table(
        ['Session', 'Engine', 'State', 'Created', 'Last used', 'Expires', ''],
        sessions.map((s) => [
          h('code', {}, s.id),
          s.engine,
          badge(s.status),
          when(s.created_at),
          when(s.last_used_at),
          when(s.expires_at),
          s.status === 'active'
            ? h('button', {
                class: 'danger small',
                'aria-label': `Release ${s.id}`,
                onclick: (e: Event) =>
                  void act(errors, async () => {
                    await api('POST', `/orgs/${org.id}/sessions/${s.id}/release`);
                    await load();
                  }, e.currentTarget as HTMLButtonElement),
              }, 'Release')
            : null,
        ]),
        'No sessions in this project. Create one with POST /v1/sessions.',
      ),
    );
  };
  const picker = await projectPicker(org, (id) => ((projectId = id), void act(errors, load)));
  projectId = picker.value;
  await load();
  return h('div', {}, h('h1', {}, 'Sessions'), section('Project', picker.element), errors, section('Sessions', results));
};
