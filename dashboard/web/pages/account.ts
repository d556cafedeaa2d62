import { api } from '../api.js';
import { field, h } from '../dom.js';
import { act, actionForm, type Me } from '../shell.js';

type SignedIn = (next?: string) => Promise<void>;

function card(title: string, ...children: Array<Node | null>): HTMLElement {
  return h('div', { class: 'auth' }, h('div', { class: 'brand big' }, 'Trawler'), h('section', { class: 'card' }, h('h1', {}, title), ...children));
}

export async function signInPage(onSignedIn: SignedIn): Promise<HTMLElement> {
  const email = h('input', { type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', autocomplete: 'current-password', required: true });
  const errors = h('div', {});
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = actionForm(
    {},
    errors,
    button,
    async () => {
      await api('POST', '/signin', { email: email.value, password: password.value });
      await onSignedIn();
    },
    field('Email', email),
    field('Password', password),
    errors,
    button,
  );
  return card('Sign in', form, h('p', { class: 'muted' }, 'New here? Accounts are created from an invitation link a workspace admin sends you (the first one is printed when Trawler starts).'));
}

/** #/join/<token>: sign up with an invitation, or accept it while signed in. */
export async function joinPage(token: string, me: Me | null, onSignedIn: SignedIn): Promise<HTMLElement> {
  const errors = h('div', {});
  if (me) {
    const button = h('button', {}, 'Accept invitation');
    button.addEventListener('click', () =>
      void act(errors, async () => {
        const joined = await api<{ organization_id: string }>('POST', '/invitations/accept', { invitation: token });
        await onSignedIn(`#/o/${joined.organization_id}/usage`);
      }, button),
    );
    return card('Join a workspace', h('p', {}, `Signed in as ${me.user.email}.`), errors, button, h('p', { class: 'muted' }, h('a', { href: '#/' }, 'Back to the dashboard')));
  }
  const email = h('input', { type: 'email', autocomplete: 'username', required: true });
  const password = h('input', { type: 'password', autocomplete: 'new-password', required: true, minlength: 10 });
  const button = h('button', { type: 'submit' }, 'Create account');
  const form = actionForm(
    {},
    errors,
    button,
    async () => {
      await api('POST', '/signup', { email: email.value, password: password.value, invitation: token });
      await onSignedIn('#/');
    },
    field('Email', email),
    field('Password', password, 'At least 10 characters.'),
    errors,
    button,
  );
  // Signing in instead keeps the invitation: the join page comes back, now with "Accept invitation".
  const signInInstead = h('a', { href: `#/join/${token}` }, 'I already have an account');
  const page = card('Create your account', form, h('p', { class: 'muted' }, signInInstead));
  signInInstead.addEventListener('click', (event) => {
    event.preventDefault();
    void signInPage(() => onSignedIn(`#/join/${token}`)).then((signIn) => page.replaceWith(signIn));
  });
  return page;
}

export async function newWorkspacePage(onSignedIn: SignedIn): Promise<HTMLElement> {
  const name = h('input', { required: true, maxlength: 100 });
  const errors = h('div', {});
  const button = h('button', { type: 'submit' }, 'Create workspace');
  return h(
    'section',
    { class: 'card' },
    h('h1', {}, 'New workspace'),
    h('p', { class: 'muted' }, 'A workspace is an organization: its own allowance, projects, keys and members. It starts with a project and a live key named Default.'),
    actionForm(
      {},
      errors,
      button,
      async () => {
        const created = await api<{ id: string }>('POST', '/orgs', { name: name.value });
        await onSignedIn(`#/o/${created.id}/usage`);
      },
      field('Workspace name', name),
      errors,
      button,
    ),
  );
}
