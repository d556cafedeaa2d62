import { ArcElement, BarController, BarElement, CategoryScale, Chart, DoughnutController, Legend, LinearScale, Tooltip } from 'chart.js';
import { api } from '../api.js';
import { codeBlock, h } from '../dom.js';
import { act, section, type Page, type PageContext } from '../shell.js';
import { curlSnippet } from '../snippets.js';
import { secretBox } from './keys.js';
import { gatewayUrl, priceList, type PlaygroundInfo } from './playground.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend, DoughnutController, ArcElement);

interface Usage {
  environment: string;
  period: { start: string; end: string; resets_at: string };
  allowance_credits: number;
  spent_credits: number;
  reserved_credits: number;
  remaining_micro: number;
  by_day: Array<{ day: string; requests: number; billed_requests: number; credits: number }>;
  by_engine: Array<{ engine: string; requests: number; credits: number }>;
}

const fmt = (n: number) => n.toLocaleString(undefined, { maximumFractionDigits: 3 });
const COLORS = ['#2563eb', '#16a34a', '#f59e0b', '#dc2626', '#7c3aed', '#0891b2'];

function tile(label: string, value: string): HTMLElement {
  return h('div', { class: 'tile' }, h('div', { class: 'tile-label' }, label), h('div', { class: 'tile-value', 'data-tile': label }, value));
}

export const usagePage: Page = async ({ org, params }) => {
  const environment = params[0] === 'test' ? 'test' : 'live';
  const usage = await api<Usage>('GET', `/orgs/${org.id}/usage?environment=${environment}`);
  const tabs = h(
    'div',
    { class: 'tabs' },
    ['live', 'test'].map((env) => h('a', { href: `#/o/${org.id}/usage/${env}`, class: env === environment ? 'active' : '' }, `${env} credits`)),
  );
  const tiles = h(
    'div',
    { class: 'tiles' },
    tile('Allowance', fmt(usage.allowance_credits)),
    tile('Spent', fmt(usage.spent_credits)),
    tile('Reserved', fmt(usage.reserved_credits)),
    tile('Left', fmt(usage.remaining_micro / 1_000_000)),
    tile('Resets', new Date(usage.period.resets_at).toLocaleDateString()),
  );
  const dayCanvas = h('canvas', { 'aria-label': 'Credits and requests per day', role: 'img' });
  const engineCanvas = h('canvas', { 'aria-label': 'Credits per engine', role: 'img' });
  new Chart(dayCanvas, {
    type: 'bar',
    data: {
      labels: usage.by_day.map((d) => d.day),
      datasets: [
        { label: 'Credits', data: usage.by_day.map((d) => d.credits), backgroundColor: COLORS[0], yAxisID: 'credits' },
        { label: 'Requests', data: usage.by_day.map((d) => d.requests), backgroundColor: COLORS[1], yAxisID: 'requests' },
      ],
    },
    options: {
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      scales: {
        x: { title: { display: true, text: 'Day (UTC)' } },
        credits: { position: 'left', beginAtZero: true, title: { display: true, text: 'Credits' } },
        requests: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false }, title: { display: true, text: 'Requests' } },
      },
    },
  });
  new Chart(engineCanvas, {
    type: 'doughnut',
    data: {
      // Slices sized by credits, as the legend says; the request count is in the label.
      labels: usage.by_engine.map((e) => `${e.engine}: ${fmt(e.credits)} credits, ${fmt(e.requests)} requests`),
      datasets: [{ label: 'Credits', data: usage.by_engine.map((e) => e.credits), backgroundColor: COLORS }],
    },
    options: { animation: false, responsive: true, maintainAspectRatio: false },
  });
  const info = await api<PlaygroundInfo>('GET', `/orgs/${org.id}/playground`);
  return h(
    'div',
    {},
    h('h1', {}, 'Usage'),
    usage.by_day.length === 0 && environment === 'live' ? gettingStarted(org, info) : null,
    tabs,
    section(
      `Allowance month ${new Date(usage.period.start).toLocaleDateString()} – ${new Date(usage.period.end).toLocaleDateString()}`,
      tiles,
      h(
        'p',
        { class: 'muted' },
        'The same figures as GET /v1/usage, in whole credits. Reserved: credits held, not spent, by scrapes and batch items in flight (each at its dearest possible price); they return to "Left" as each finishes, less what it was charged; the hold of a batch item that failed, was cancelled or skipped goes back a minute after it ended (BATCH_HOLD_RETURN_DELAY_MS, so that a retry finds it). Left = allowance − spent − reserved.',
      ),
    ),
    h(
      'div',
      { class: 'charts' },
      section('Per day', usage.by_day.length ? h('div', { class: 'chart' }, dayCanvas) : h('p', { class: 'empty' }, 'No settled requests this month.')),
      section('Credits per engine', usage.by_engine.length ? h('div', { class: 'chart' }, engineCanvas) : h('p', { class: 'empty' }, 'No settled requests this month.')),
    ),
    priceList(info),
  );
};

/** Onboarding, until the workspace's first settled scrape: the key, a ready curl, the playground. */
function gettingStarted(org: PageContext['org'], info: PlaygroundInfo): HTMLElement {
  const example = { url: 'https://example.com/', response_format: 'markdown' };
  const slot = h('div', {}, codeBlock(curlSnippet(gatewayUrl(info), example), 'Copy curl'));
  const reveal = h('button', {}, 'Show my Default key in the command');
  reveal.addEventListener('click', () =>
    void act(
      slot,
      async () => {
        const { secret } = await api<{ secret: string }>('POST', `/orgs/${org.id}/default-key/reveal`);
        slot.replaceChildren(secretBox('Your Default key (live):', secret), codeBlock(curlSnippet(gatewayUrl(info), example, secret), 'Copy curl'));
      },
      reveal,
    ),
  );
  return section(
    'Get started',
    h('p', {}, 'Your workspace has a live key named Default. Scrape a page with it from a terminal, or try every parameter in the ', h('a', { href: `#/o/${org.id}/playground` }, 'Playground'), '.'),
    h('div', { class: 'row' }, reveal),
    slot,
    h('p', { class: 'muted' }, 'Or set TRAWLER_API_KEY and use the CLI: trawler scrape https://example.com/ --response-format markdown'),
  );
}
