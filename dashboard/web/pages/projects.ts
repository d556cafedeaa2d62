import { api } from '../api.js';
import { field, h, when } from '../dom.js';
import { actionForm, canAdmin, section, type Page } from '../shell.js';

interface Project {
  id: string;
  name: string;
  defaults: Record<string, unknown>;
  created_at: string;
}

const FIELDS = 'js_render, stealth, impersonate, mode, engine, premium_proxy, proxy_country, block_resources, custom_headers, links, main_content_only';

export const projectsPage: Page = async ({ org, navigate }) => {
  const base = `/orgs/${org.id}/projects`;
  const { projects } = await api<{ projects: Project[] }>('GET', base);
  const admin = canAdmin(org);

  const cards = projects.map((project) => {
    const status = h('div', {});
    const name = h('input', { value: project.name, maxlength: 100, disabled: !admin });
    const defaults = h('textarea', { rows: 6, spellcheck: 'false', disabled: !admin, 'aria-label': `Scrape defaults of ${project.name}` });
    defaults.value = JSON.stringify(project.defaults, null, 2);
    const save = h('button', { type: 'submit' }, 'Save project');
    const form = actionForm(
      {},
      status,
      save,
      async () => {
        let parsed: unknown;
        try {
          parsed = JSON.parse(defaults.value || '{}');
        } catch {
          throw new Error('Scrape defaults must be a JSON object');
        }
        const saved = await api<Project>('PATCH', `${base}/${project.id}`, { name: name.value, defaults: parsed });
        defaults.value = JSON.stringify(saved.defaults, null, 2);
        card.querySelector('h2')?.replaceChildren(saved.name);
        status.replaceChildren(h('div', { class: 'ok', role: 'status' }, 'Saved. Scrapes of this project use these defaults for what they omit.'));
      },
      field('Name', name),
      field('Scrape defaults (JSON)', defaults, `Fields: ${FIELDS}. Checked by the same rules as /v1/scrape.`),
      status,
      admin ? save : null,
    );
    const card = section(project.name, h('p', { class: 'muted' }, h('code', {}, project.id), ` · created ${when(project.created_at)}`), form);
    return card;
  });

  const newName = h('input', { required: true, maxlength: 100 });
  const errors = h('div', {});
  const create = h('button', { type: 'submit' }, 'Create project');
  const createForm = actionForm(
    { class: 'row' },
    errors,
    create,
    async () => {
      await api('POST', base, { name: newName.value });
      navigate(`#/o/${org.id}/projects`);
    },
    field('New project name', newName),
    create,
  );
  return h('div', {}, h('h1', {}, 'Projects'), admin ? section('New project', createForm, errors) : null, ...cards);
};
