import { api } from '../api.js';
import { badge, copyButton, field, h, table, when } from '../dom.js';
import { act, actionForm, canAdmin, section, type Page } from '../shell.js';

interface Key {
  id: string;
  project_id: string;
  name: string;
  environment: 'live' | 'test';
  display_prefix: string;
  scopes: string[];
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
  is_default: boolean;
}
interface Project {
  id: string;
  name: string;
}

/**
 * The scopes offered on a new key, with what each allows. `browser` is not offered: /v1/browser answers
 * 501 ERR::ENGINE::UNAVAILABLE in this version, so the scope would grant nothing (the API still accepts it).
 */
const SCOPES: Array<[string, string]> = [
  ['scrape', 'GET and POST /v1/scrape'],
  ['batch', 'create, read, cancel and retry batch jobs (/v1/batch)'],
  ['sessions', 'browser sessions that keep cookies (/v1/sessions)'],
  ['read', 'read-only: usage and the request log (/v1/usage, /v1/requests)'],
];
const ON_NEW_KEYS = ['scrape', 'batch', 'sessions'];

export function secretBox(label: string, secret: string): HTMLElement {
  return h('div', { class: 'secret' }, h('div', { class: 'inline-code' }, label, copyButton(() => secret, 'Copy secret')), h('code', { 'data-secret': 'true' }, secret));
}

export const keysPage: Page = async ({ org, navigate }) => {
  const base = `/orgs/${org.id}`;
  const [{ keys }, { projects }] = await Promise.all([api<{ keys: Key[] }>('GET', `${base}/keys`), api<{ projects: Project[] }>('GET', `${base}/projects`)]);
  const projectName = new Map(projects.map((p) => [p.id, p.name]));
  const reload = () => navigate(`#/o/${org.id}/keys`);

  const defaultKey = keys.find((k) => k.is_default && !k.revoked_at);
  const revealSlot = h('div', {});
  const revealButton = h('button', {}, 'Reveal Default key');
  revealButton.addEventListener('click', () =>
    void act(revealSlot, async () => {
      const revealed = await api<{ secret: string }>('POST', `${base}/default-key/reveal`);
      revealSlot.replaceChildren(secretBox('Default key secret:', revealed.secret));
    }, revealButton),
  );
  const rotateButton = h('button', { class: 'secondary' }, defaultKey ? 'Rotate Default' : 'Create Default');
  rotateButton.addEventListener('click', () =>
    void act(revealSlot, async () => {
      if (defaultKey && !confirm('Revoke the current Default key and create a new one?')) return;
      await api('POST', `${base}/default-key/rotate`);
      reload();
    }, rotateButton),
  );
  const defaultCard = section(
    'Default key',
    h('p', { class: 'muted' }, defaultKey ? `Live key ${defaultKey.display_prefix}… with all five scopes. Members may reveal it at most 10 times per minute.` : 'This workspace has no live Default key.'),
    h('div', { class: 'row' }, defaultKey ? revealButton : null, canAdmin(org) ? rotateButton : null),
    revealSlot,
  );

  const created = h('div', {});
  const name = h('input', { required: true, maxlength: 100 });
  const project = h('select', {}, projects.map((p) => h('option', { value: p.id }, p.name)));
  const environment = h('select', {}, h('option', { value: 'test' }, 'test'), h('option', { value: 'live' }, 'live'));
  const scopeBoxes = SCOPES.map(([scope]) => h('input', { type: 'checkbox', value: scope, checked: ON_NEW_KEYS.includes(scope), id: `scope-${scope}` }));
  const expires = h('input', { type: 'datetime-local' });
  const createButton = h('button', { type: 'submit' }, 'Create key');
  const createForm = actionForm(
    { class: 'grid' },
    created,
    createButton,
    async () => {
      const answer = await api<{ key: Key; secret: string }>('POST', `${base}/keys`, {
        name: name.value,
        project_id: project.value,
        environment: environment.value,
        scopes: scopeBoxes.filter((b) => b.checked).map((b) => b.value),
        ...(expires.value ? { expires_at: new Date(expires.value).toISOString() } : {}),
      });
      created.replaceChildren(secretBox(`New key "${answer.key.name}": copy the secret now, it is shown only this once.`, answer.secret));
      keys.unshift(answer.key);
      list.replaceChildren(keyTable(keys));
      // A second click must be a new decision (a new name), not a duplicate key that hides this secret.
      name.value = '';
      expires.value = '';
    },
    field('Name', name),
    field('Project', project),
    field(
      'Environment',
      environment,
      'Fixed at creation. Both really scrape. A test key (svc_test_…) spends the test ledger, an allowance of its own that never touches live credits (Usage → test credits); a live key spends the workspace\'s credits.',
    ),
    h(
      'fieldset',
      {},
      h('legend', {}, 'Scopes'),
      scopeBoxes.map((box, index) => h('label', { class: 'check scope', title: SCOPES[index][1] }, box, ` ${box.value}`, h('small', { class: 'muted' }, ` — ${SCOPES[index][1]}`))),
    ),
    field('Expires (optional)', expires),
    createButton,
  );

  const listErrors = h('div', {});
  const keyTable = (rows: Key[]) =>
    table(
      ['Key', 'Name', 'Project', 'Env', 'Scopes', 'Created', 'Last used', 'State', ''],
      rows.map((key) => [
        h('code', {}, `${key.display_prefix}…`),
        key.name,
        projectName.get(key.project_id) ?? key.project_id,
        badge(key.environment),
        key.scopes.join(', '),
        when(key.created_at),
        when(key.last_used_at),
        key.revoked_at ? badge('revoked') : key.expires_at && new Date(key.expires_at) < new Date() ? badge('expired') : badge(key.expires_at ? `expires ${when(key.expires_at)}` : 'active', 'active'),
        canAdmin(org) && !key.revoked_at && !key.is_default
          ? h('button', {
              class: 'danger small',
              'aria-label': `Revoke ${key.name}`,
              onclick: (e: Event) => {
                if (!confirm(`Revoke the key "${key.name}"? Clients using it get 401 within 60 seconds; this cannot be undone.`)) return;
                void act(listErrors, async () => {
                  await api('POST', `${base}/keys/${key.id}/revoke`);
                  reload();
                }, e.currentTarget as HTMLButtonElement);
              },
            }, 'Revoke')
          : null,
      ]),
      'No keys.',
    );
  const list = h('div', {}, keyTable(keys));
  return h(
    'div',
    {},
    h('h1', {}, 'API keys'),
    defaultCard,
    canAdmin(org) ? section('Create a key', createForm, created) : null,
    section('Keys', h('p', { class: 'muted' }, 'Only the first 16 characters of a secret are ever shown again. A revoked key stops working within 60 seconds.'), listErrors, list),
  );
};
