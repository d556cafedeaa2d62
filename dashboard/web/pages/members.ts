import { api } from '../api.js';
import { badge, field, h, table, when } from '../dom.js';
import { act, actionForm, canAdmin, section, type Page } from '../shell.js';

interface Member {
  user_id: string;
  email: string;
  role: string;
  created_at: string;
}
interface Invitation {
  id: string;
  email: string | null;
  role: string;
  expires_at: string;
}

const ROLES = ['member', 'admin', 'owner'];

export const membersPage: Page = async ({ org, me, navigate, refreshMe }) => {
  const base = `/orgs/${org.id}`;
  const errors = h('div', {});
  const reload = () => navigate(`#/o/${org.id}/members`);
  const { members } = await api<{ members: Member[] }>('GET', `${base}/members`);
  const invitations = canAdmin(org) ? (await api<{ invitations: Invitation[] }>('GET', `${base}/invitations`)).invitations : [];

  const roleCell = (m: Member) => {
    if (org.role !== 'owner') return badge(m.role);
    const select = h('select', { 'aria-label': `Role of ${m.email}` }, ROLES.map((r) => h('option', { value: r, selected: r === m.role }, r)));
    select.addEventListener('change', () =>
      void act(errors, async () => {
        try {
          await api('PATCH', `${base}/members/${m.user_id}`, { role: select.value });
        } catch (error) {
          select.value = m.role; // refused: the role is still the old one
          throw error;
        }
        await refreshMe();
        reload();
      }),
    );
    return select;
  };
  const memberTable = table(
    ['Email', 'Role', 'Joined', ''],
    members.map((m) => [
      m.email + (m.user_id === me.user.id ? ' (you)' : ''),
      roleCell(m),
      when(m.created_at),
      // Only an owner may remove an owner (the API refuses an admin's attempt).
      canAdmin(org) && m.user_id !== me.user.id && (org.role === 'owner' || m.role !== 'owner')
        ? h('button', { class: 'danger small', onclick: () => void act(errors, async () => (await api('DELETE', `${base}/members/${m.user_id}`), reload())) }, 'Remove')
        : null,
    ]),
  );

  const link = h('div', {});
  const pending = h('div', {});
  const showInvitations = (list: Invitation[]) =>
    pending.replaceChildren(
      table(['Email', 'Role', 'Expires', ''], list.map((i) => [i.email ?? 'anyone with the link', i.role, when(i.expires_at), h('button', { class: 'secondary small', onclick: () => void act(errors, async () => (await api('DELETE', `${base}/invitations/${i.id}`), reload())) }, 'Withdraw')]), 'No pending invitations.'),
    );
  showInvitations(invitations);
  const email = h('input', { type: 'email', placeholder: 'optional: only this address may use it' });
  const role = h('select', {}, ROLES.filter((r) => org.role === 'owner' || r !== 'owner').map((r) => h('option', { value: r }, r)));
  const invite = h('button', { type: 'submit' }, 'Create invitation link');
  const inviteForm = actionForm(
    { class: 'row' },
    link,
    invite,
    async () => {
      const answer = await api<{ link: string }>('POST', `${base}/invitations`, { role: role.value, ...(email.value ? { email: email.value } : {}) });
      link.replaceChildren(h('div', { class: 'secret' }, h('div', {}, 'Send this one-time link (valid 72 hours):'), h('code', {}, answer.link)));
      showInvitations((await api<{ invitations: Invitation[] }>('GET', `${base}/invitations`)).invitations);
    },
    field('Email', email),
    field('Role', role),
    invite,
  );

  const rename = h('input', { value: org.name, maxlength: 100 });
  const renameButton = h('button', { type: 'submit' }, 'Rename');
  const renameForm = actionForm(
    { class: 'row' },
    errors,
    renameButton,
    async () => {
      await api('PATCH', base, { name: rename.value });
      await refreshMe();
      reload();
    },
    field('Workspace name', rename),
    renameButton,
  );

  return h(
    'div',
    {},
    h('h1', {}, 'Members'),
    errors,
    org.role === 'owner' ? section('Workspace', renameForm) : null,
    section('Members', h('p', { class: 'muted' }, 'Owners manage everything, including roles; admins manage keys, projects and invitations; members view everything, reveal the Default key and control batch jobs and sessions.'), memberTable),
    canAdmin(org)
      ? section(
          'Invitations',
          inviteForm,
          link,
          pending,
        )
      : null,
  );
};
