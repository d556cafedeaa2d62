import { api, ApiError, onInvalidToken, setCsrfToken } from './api.js';
import { h } from './dom.js';
import { joinPage, newWorkspacePage, signInPage } from './pages/account.js';
import { batchPage } from './pages/batch.js';
import { crawlPage } from './pages/crawl.js';
import { keysPage } from './pages/keys.js';
import { membersPage } from './pages/members.js';
import { playgroundPage } from './pages/playground.js';
import { projectsPage } from './pages/projects.js';
import { requestsPage } from './pages/requests.js';
import { sessionsPage } from './pages/sessions.js';
import { usagePage } from './pages/usage.js';
import { proxyExitsPage } from './pages/proxy-exits.js';
import { problemBox, type Me, type Page } from './shell.js';

const PAGES: Array<[string, string, Page]> = [
  ['usage', 'Usage', usagePage],
  ['playground', 'Playground', playgroundPage],
  ['keys', 'API keys', keysPage],
  ['projects', 'Projects', projectsPage],
  ['requests', 'Request log', requestsPage],
  ['batch', 'Batch jobs', batchPage],
  ['crawl', 'Crawls', crawlPage],
  ['sessions', 'Sessions', sessionsPage],
  ['proxy-exits', 'Proxy exits', proxyExitsPage],
  ['members', 'Members', membersPage],
];

const root = document.getElementById('app') as HTMLElement;
let me: Me | null = null;
let timers: number[] = [];

async function loadMe(): Promise<Me | null> {
  try {
    me = await api<Me>('GET', '/me');
    setCsrfToken(me.csrf_token);
  } catch (error) {
    if (error instanceof ApiError && error.problem.code === 'ERR::AUTH::INVALID_TOKEN') me = null;
    else throw error;
  }
  return me;
}

function navigate(hash: string): void {
  if (location.hash === hash) void render();
  else location.hash = hash;
}

async function render(): Promise<void> {
  for (const timer of timers) clearInterval(timer);
  timers = [];
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const signedIn = me ?? (await loadMe());
  if (parts[0] === 'join') return show(await joinPage(parts[1] ?? '', signedIn, onSignedIn));
  if (!signedIn) return show(await signInPage(onSignedIn));
  if (parts[0] === 'new-workspace') return show(frame(signedIn, null, await newWorkspacePage(onSignedIn), signedIn.organizations[0]?.id));
  const org = signedIn.organizations.find((o) => o.id === parts[1]) ?? signedIn.organizations[0];
  if (!org) return navigate('#/new-workspace');
  if (parts[0] !== 'o' || parts[1] !== org.id) return navigate(`#/o/${org.id}/usage`);
  const entry = PAGES.find(([name]) => name === parts[2]) ?? PAGES[0];
  let content: HTMLElement;
  try {
    content = await entry[2]({
      me: signedIn,
      org,
      params: parts.slice(3),
      navigate,
      refreshMe: async () => void (await loadMe()),
      every: (ms, run) => void timers.push(window.setInterval(run, ms)),
    });
  } catch (error) {
    content = problemBox(error);
  }
  show(frame(signedIn, entry[0], content, org.id));
}

async function onSignedIn(next?: string): Promise<void> {
  await loadMe();
  navigate(next ?? '#/');
}

function show(node: HTMLElement): void {
  root.replaceChildren(node);
}

function frame(signedIn: Me, current: string | null, content: HTMLElement, orgId?: string): HTMLElement {
  const org = signedIn.organizations.find((o) => o.id === orgId);
  const switcher = h(
    'select',
    { 'aria-label': 'Workspace', onchange: (e: Event) => navigate(`#/o/${(e.target as HTMLSelectElement).value}/usage`) },
    signedIn.organizations.map((o) => h('option', { value: o.id, selected: o.id === orgId }, o.name)),
  );
  const signOut = async () => {
    await api('POST', '/signout');
    me = null;
    navigate('#/');
  };
  return h(
    'div',
    { class: 'layout' },
    h(
      'nav',
      { class: 'sidebar' },
      h('div', { class: 'brand' }, 'Trawler'),
      switcher,
      h('a', { href: '#/new-workspace', class: 'small-link' }, '+ New workspace'),
      h('ul', {}, orgId ? PAGES.map(([name, label]) => h('li', {}, h('a', { href: `#/o/${orgId}/${name}`, class: name === current ? 'active' : '' }, label))) : []),
      h('a', { href: '/api-reference/', target: '_blank', rel: 'noopener', class: 'small-link' }, 'API reference ↗'),
      h('div', { class: 'who' }, h('div', {}, signedIn.user.email), org ? h('div', { class: 'role' }, `role: ${org.role}`) : null, h('button', { class: 'link', onclick: signOut }, 'Sign out')),
    ),
    h(
      'main',
      {},
      org?.status === 'suspended'
        ? h('div', { class: 'alert', role: 'alert' }, h('strong', {}, 'This organization is suspended. '), 'Its API keys answer 403 ERR::AUTH::FORBIDDEN until the operator activates it again.')
        : null,
      content,
    ),
  );
}

// A session that expired while a page was open: back to the sign-in form, once /me confirms it is gone.
onInvalidToken(() => {
  if (!me) return;
  void loadMe().then((still) => {
    if (!still) void render();
  });
});

window.addEventListener('hashchange', () => void render());
void render();
