import { ArcElement, BarController, BarElement, CategoryScale, Chart, DoughnutController, Legend, LinearScale, Tooltip } from 'chart.js';
import { api } from '../api.js';
import { h } from '../dom.js';
import { section, type Page } from '../shell.js';

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
  const engineCanvas = h('canvas', { 'aria-label': 'Requests per engine', role: 'img' });
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
      scales: { credits: { position: 'left', beginAtZero: true }, requests: { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false } } },
    },
  });
  new Chart(engineCanvas, {
    type: 'doughnut',
    data: {
      labels: usage.by_engine.map((e) => `${e.engine} (${fmt(e.credits)} credits)`),
      datasets: [{ label: 'Requests', data: usage.by_engine.map((e) => e.requests), backgroundColor: COLORS }],
    },
    options: { animation: false, responsive: true, maintainAspectRatio: false },
  });
  return h(
    'div',
    {},
    h('h1', {}, 'Usage'),
    tabs,
    section(
      `Allowance month ${new Date(usage.period.start).toLocaleDateString()} – ${new Date(usage.period.end).toLocaleDateString()}`,
      tiles,
      h('p', { class: 'muted' }, 'The same figures as GET /v1/usage. Reserved credits are held by scrapes and batch items in flight.'),
    ),
    h(
      'div',
      { class: 'charts' },
      section('Per day', usage.by_day.length ? h('div', { class: 'chart' }, dayCanvas) : h('p', { class: 'empty' }, 'No settled requests this month.')),
      section('Per engine', usage.by_engine.length ? h('div', { class: 'chart' }, engineCanvas) : h('p', { class: 'empty' }, 'No settled requests this month.')),
    ),
  );
};
