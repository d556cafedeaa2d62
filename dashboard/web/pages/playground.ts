import { api } from '../api.js';
import { codeBlock, field, h, table } from '../dom.js';
import { act, section, type Page } from '../shell.js';
import { cliSnippet, curlSnippet, javascriptSnippet, type Params } from '../snippets.js';

/** lib/scrape/field-table.ts's ScrapeFieldDescription, as the dashboard's /playground answers it. */
export interface FieldDescription {
  name: string;
  encoding: 'string' | 'integer' | 'boolean' | 'list' | 'integer-list' | 'json';
  values?: string[];
  minimum?: number;
  maximum?: number;
  help?: string;
  group: string;
}
export interface PlaygroundInfo {
  fields: FieldDescription[];
  prices: Record<string, { datacenter: number; residential: number }>;
  ai_extract_credits: number;
  api_port: number | null;
}
interface RunAnswer {
  status: number;
  headers: Record<string, string>;
  content_type: string;
  bytes: number;
  truncated: boolean;
  body?: string;
  body_base64?: string;
  /** For the Rendered tab's POST /preview (dashboard/routes/preview.ts). */
  preview_ticket?: string;
}

const GROUP_TITLES: Record<string, string> = {
  target: 'Request',
  engine: 'Engine',
  browser: 'Browser',
  proxy: 'Proxy',
  output: 'Output and extraction',
  billing: 'Status and billing',
};

/** The gateway as the browser reaches it: this host, the gateway's port. */
export function gatewayUrl(info: PlaygroundInfo): string {
  return info.api_port ? `${location.protocol}//${location.hostname}:${info.api_port}` : location.origin;
}

/** One control per scrape parameter, built from the field table; `read()` gives the parameters set. */
function control(spec: FieldDescription, onChange: () => void): { element: HTMLElement; read(): unknown; set(value: unknown): void } {
  const hint = [spec.help, spec.values && spec.encoding === 'list' ? `One or more of: ${spec.values.join(', ')}` : null, spec.minimum !== undefined ? `${spec.minimum} to ${spec.maximum}` : null]
    .filter(Boolean)
    .join(' · ');
  let input: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
  if (spec.encoding === 'boolean' || (spec.values?.length && spec.encoding === 'string')) {
    const choices = spec.encoding === 'boolean' ? ['true', 'false'] : (spec.values ?? []);
    input = h('select', { name: spec.name }, h('option', { value: '' }, '(default)'), choices.map((value) => h('option', { value }, value)));
  } else if (spec.encoding === 'json') {
    input = h('textarea', { name: spec.name, rows: 2, placeholder: spec.name === 'custom_headers' ? '{"Accept-Language": "en"}' : 'JSON' });
  } else if (spec.encoding === 'integer') {
    input = h('input', { name: spec.name, type: 'number', min: spec.minimum, max: spec.maximum, step: 1 });
  } else {
    input = h('input', { name: spec.name, type: 'text', placeholder: spec.encoding.endsWith('list') ? 'a, b, ...' : '' });
  }
  input.addEventListener('input', onChange);
  input.addEventListener('change', onChange);
  const read = (): unknown => {
    const text = input.value.trim();
    if (text === '') return undefined;
    switch (spec.encoding) {
      case 'boolean':
        return text === 'true';
      case 'integer':
        return Number(text);
      case 'list':
        return text.split(',').map((item) => item.trim()).filter(Boolean);
      case 'integer-list':
        return text.split(',').map((item) => Number(item.trim()));
      case 'json':
        try {
          return JSON.parse(text) as unknown;
        } catch {
          return text; // sent as is: the API names the field and says it is not an object
        }
      default:
        return text;
    }
  };
  const set = (value: unknown) => {
    input.value = value === undefined ? '' : Array.isArray(value) && spec.encoding !== 'json' ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value);
  };
  return { element: field(spec.name, input, hint || undefined), read, set };
}

export const playgroundPage: Page = async ({ org }) => {
  const info = await api<PlaygroundInfo>('GET', `/orgs/${org.id}/playground`);
  const base = gatewayUrl(info);
  const errors = h('div', {});
  const snippets = h('div', {});
  const preview = h('div', {});
  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://example.com/', size: 60 });
  const keyChoice = h('select', { name: 'key' }, h('option', { value: 'default' }, 'Default key (live, kept sealed)'), h('option', { value: 'paste' }, 'Paste a key…'));
  const pasted = h('input', { type: 'password', name: 'secret', placeholder: 'svc_test_…', autocomplete: 'off', hidden: true });
  keyChoice.addEventListener('change', () => (pasted.hidden = keyChoice.value !== 'paste'));

  const controls = info.fields.filter((spec) => spec.name !== 'url').map((spec) => ({ spec, ...control(spec, () => update()) }));
  const params = (): Params => {
    const out: Params = { url: url.value.trim() };
    for (const { spec, read } of controls) {
      const value = read();
      if (value !== undefined) out[spec.name] = value;
    }
    return out;
  };
  const update = () => {
    const current = params();
    snippets.replaceChildren(
      h('h3', {}, 'curl'),
      codeBlock(curlSnippet(base, current), 'Copy curl'),
      h('h3', {}, 'CLI'),
      codeBlock(cliSnippet(base, current), 'Copy CLI'),
      h('h3', {}, 'JavaScript'),
      codeBlock(javascriptSnippet(base, current), 'Copy JavaScript'),
    );
  };
  url.addEventListener('input', update);

  const groups = [...new Set(info.fields.map((spec) => spec.group))].map((group) =>
    h('details', { class: 'param-group', open: group === 'engine' || group === 'output' }, h('summary', {}, GROUP_TITLES[group] ?? group), h('div', { class: 'grid' }, controls.filter((c) => c.spec.group === group).map((c) => c.element))),
  );
  const run = h('button', { type: 'submit' }, 'Run scrape');
  const form = h('form', { class: 'playground' }, h('div', { class: 'row' }, field('URL', url), field('Key', keyChoice), pasted, run), ...groups);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    preview.replaceChildren(h('p', { class: 'muted' }, 'Running…'));
    void act(
      errors,
      async () => {
        const answer = await api<RunAnswer>('POST', `/orgs/${org.id}/playground/scrape`, { key: keyChoice.value === 'paste' ? { secret: pasted.value.trim() } : 'default', params: params() });
        preview.replaceChildren(answerView(answer));
      },
      run,
    ).then(() => {
      if (errors.childElementCount > 0) preview.replaceChildren();
    });
  });
  update();
  return h(
    'div',
    {},
    h('h1', {}, 'Playground'),
    h('p', { class: 'muted' }, 'Every scrape parameter of the API, as the API defines it. A run goes to the gateway\'s POST /v1/scrape with the key chosen: it is billed and appears in the request log like any other call.'),
    section('Scrape', form),
    errors,
    section('Answer', preview),
    section('The same request elsewhere', snippets),
    priceList(info),
  );
};

/** The answer, as the tabs of its kinds: rendered page, text, JSON envelope, screenshots, headers. */
function answerView(answer: RunAnswer): HTMLElement {
  const tabs: Array<[string, () => HTMLElement]> = [];
  const body = answer.body ?? '';
  let envelope: Record<string, unknown> | null = null;
  if (answer.content_type.includes('json')) {
    try {
      envelope = JSON.parse(body) as Record<string, unknown>;
    } catch {
      envelope = null;
    }
  }
  const document = envelope && typeof envelope.content === 'string' ? envelope.content : answer.content_type.startsWith('text/') ? body : null;
  const isHtml = answer.content_type.startsWith('text/html') || (envelope !== null && typeof envelope.content === 'string' && /^\s*</.test(envelope.content));
  if (document !== null && isHtml) {
    const ticket = answer.preview_ticket;
    if (ticket) tabs.push(['Rendered', () => renderedFrame(document, ticket)]);
  }
  if (document !== null) tabs.push([isHtml ? 'HTML source' : answer.content_type.startsWith('text/markdown') ? 'Markdown' : 'Text', () => h('pre', { class: 'preview-text' }, document)]);
  if (envelope) tabs.push(['JSON', () => h('pre', { class: 'preview-text' }, JSON.stringify(envelope, null, 2))]);
  const shots = Array.isArray(envelope?.screenshots) ? (envelope.screenshots as Array<{ name?: string; format?: string; data?: string }>) : [];
  if (shots.length > 0) {
    tabs.push(['Screenshots', () => h('div', {}, shots.map((shot) => h('figure', {}, h('img', { class: 'preview-shot', alt: shot.name ?? 'screenshot', src: `data:image/${shot.format ?? 'png'};base64,${shot.data ?? ''}` }), h('figcaption', {}, shot.name ?? ''))))]);
  }
  if (answer.body_base64 !== undefined) tabs.push(['Body', () => h('p', {}, `${answer.content_type}, ${answer.bytes} bytes (not shown here).`)]);
  tabs.push(['Headers', () => table(['Header', 'Value'], Object.entries(answer.headers).map(([name, value]) => [h('code', {}, name), value]))]);

  const credits = answer.headers['x-credits-charged'];
  const problem = answer.status >= 400 && envelope && typeof envelope.code === 'string' ? envelope : null;
  const summary = h(
    'p',
    { class: answer.status < 400 ? 'ok' : 'alert', role: answer.status < 400 ? 'status' : 'alert', 'data-answer-status': answer.status },
    `HTTP ${answer.status}`,
    problem ? h('span', {}, ' · ', h('strong', {}, String(problem.code)), typeof problem.detail === 'string' ? ` — ${problem.detail}` : '') : '',
    answer.headers['x-target-status'] ? ` · target ${answer.headers['x-target-status']}` : '',
    ` · ${credits ?? '0'} ${credits === '1' ? 'credit' : 'credits'}`,
    answer.headers['x-engine'] ? ` · engine ${answer.headers['x-engine']}` : '',
    answer.headers['x-request-id'] ? h('span', {}, ' · request ', h('code', {}, answer.headers['x-request-id'])) : '',
    answer.truncated ? ` · first ${answer.body?.length ?? 0} of ${answer.bytes} bytes shown` : '',
  );
  const panel = h('div', { class: 'tab-panel' });
  const bar = h('div', { class: 'tabs', role: 'tablist' });
  const select = (index: number) => {
    panel.replaceChildren(tabs[index][1]());
    bar.querySelectorAll('button').forEach((button, i) => button.setAttribute('aria-selected', String(i === index)));
  };
  tabs.forEach(([name], index) => {
    const button = h('button', { type: 'button', role: 'tab', class: 'secondary small' }, name);
    button.addEventListener('click', () => select(index));
    bar.append(button);
  });
  select(0);
  return h('div', {}, summary, bar, panel);
}

let frames = 0;

/**
 * The page in a sandboxed frame (no allow-scripts, no allow-same-origin: it cannot run code nor reach
 * this origin) loaded from POST /preview, whose own policy lets the site's images and styles load
 * (docs/dashboard.md "Preview") with the ticket the run minted. A srcdoc frame would inherit the
 * dashboard's policy, which loads nothing from elsewhere. The form posts once the frame is in the document.
 */
function renderedFrame(html: string, ticket: string): HTMLElement {
  const name = `preview-${(frames += 1)}`;
  const iframe = h('iframe', { class: 'preview-frame', sandbox: '', name, title: 'Rendered page' });
  const input = (field: string, value: string) => h('input', { type: 'hidden', name: field, value });
  const form = h('form', { method: 'post', action: '/preview', target: name, hidden: true }, input('ticket', ticket), input('html', html));
  window.setTimeout(() => {
    if (form.isConnected) form.submit();
  });
  return h('div', {}, iframe, form);
}

/** Credits per engine and exit (lib/billing/prices.ts), the numbers the reservation and charge use. */
export function priceList(info: Pick<PlaygroundInfo, 'prices' | 'ai_extract_credits'>): HTMLElement {
  return section(
    'Price list',
    table(
      ['Engine', 'Datacenter exit', 'Residential exit (premium_proxy)'],
      Object.entries(info.prices).map(([engine, price]) => [h('code', {}, engine), `${price.datacenter} ${price.datacenter === 1 ? 'credit' : 'credits'}`, `${price.residential} credits`]),
    ),
    h(
      'p',
      { class: 'muted' },
      `Per successful scrape (and per 404 or 410, and statuses in allowed_status_codes); other failures cost nothing. ai_extract adds ${info.ai_extract_credits} credits. A cache hit costs 0 credits. mode=auto holds its dearest rung while it runs and charges the rung that answered; a batch holds every item's dearest price until the item finishes: that is the "reserved" figure.`,
    ),
  );
}
