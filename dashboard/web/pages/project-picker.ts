import { api } from '../api.js';
import { field, h } from '../dom.js';
import type { OrgSummary } from '../shell.js';

/** A project select for pages that list one project's things; remembers the choice per workspace. */
export async function projectPicker(org: OrgSummary, onChange: (projectId: string) => void): Promise<{ element: HTMLElement; value: string }> {
  const { projects } = await api<{ projects: Array<{ id: string; name: string }> }>('GET', `/orgs/${org.id}/projects`);
  const remembered = sessionStorage.getItem(`project:${org.id}`);
  const value = projects.find((p) => p.id === remembered)?.id ?? projects[0]?.id ?? '';
  const select = h('select', {}, projects.map((p) => h('option', { value: p.id, selected: p.id === value }, p.name)));
  select.addEventListener('change', () => {
    sessionStorage.setItem(`project:${org.id}`, select.value);
    onChange(select.value);
  });
  return { element: field('Project', select), value };
}
