import { api } from '../api.js';
import { codeBlock, copyButton, field, h, table, when } from '../dom.js';
import { itemTable } from '../item-table.js';
import { cancellable, jobControl, jobList, progressLines, type Job, type ListedJob } from '../job-list.js';
import { act, section, type Page, type PageContext } from '../shell.js';
import { gatewayUrl, type PlaygroundInfo } from './playground.js';

interface CrawlFacts {
  url: string;
  rules: Record<string, unknown>;
  robots_txt: 'obeyed' | 'none' | 'unreachable' | 'ignored';
  stopped_reason?: string;
  discovered: number;
  queued: number;
  skipped: Record<string, number>;
  by_depth: Array<{ depth: number; queued: number; skipped: Record<string, number> }>;
}
type Crawl = Job & { crawl: CrawlFacts };
interface CrawlRow extends ListedJob {
  url: string;
}

/** docs/crawl.md "Which links are followed": what each skip reason means, said where it is counted. */
const SKIP_MEANING: Record<string, string> = {
  blocked_address: 'private or loopback address',
  off_site: 'another host',
  pattern: 'include/exclude paths',
  robots: 'robots.txt',
  depth: 'deeper than max depth',
  duplicate: 'already queued',
  limit: 'past the limit',
  credits: 'allowance ran out',
  cancelled: 'found after cancel',
};

export const crawlPage: Page = async (context) => (context.params[1] ? onePage(context, context.params[0], context.params[1]) : listPage(context));

async function listPage(context: PageContext): Promise<HTMLElement> {
  const { org, navigate } = context;
  const crawls = await jobList<CrawlRow>(context, {
    read: async (projectId) => {
      const answer = await api<{ crawls: CrawlRow[]; limit: number }>('GET', `/orgs/${org.id}/projects/${projectId}/crawls`);
      const note = answer.crawls.length >= answer.limit ? `The ${answer.limit} newest; older crawls are in Batch jobs (a crawl is a batch job).` : undefined;
      return { rows: answer.crawls, note };
    },
    noun: 'Crawl',
    count: 'Pages',
    extra: [['Seed', (crawl) => h('span', { class: 'url', title: crawl.url }, crawl.url)]],
    empty: 'No crawl in this project yet: start one above, or with POST /v1/crawl or `trawler crawl URL`.',
  });
  const base = gatewayUrl(await api<PlaygroundInfo>('GET', `/orgs/${org.id}/playground`));
  return h(
    'div',
    {},
    h('h1', {}, 'Crawls'),
    h('p', { class: 'muted' }, 'A crawl scrapes a site from one URL, following its links and sitemap within the rules you set. Each page is a batch item: held at its price when queued, charged only when it succeeds. A map lists a site\'s URLs without scraping them, for no credits.'),
    crawls.picker,
    crawls.errors,
    newCrawl(org, base, crawls.projectId, navigate),
    section('Crawls', crawls.list),
    mapSection(org, crawls.projectId),
  );
}

const lines = (text: string) => text.split(/\r?\n/).map((line) => line.trim()).filter(Boolean);
const checkbox = (name: string) => h('input', { type: 'checkbox', name });
const labelled = (box: HTMLInputElement, label: string, hint: string) => h('label', { class: 'check', title: hint }, box, ` ${label}`, h('small', {}, ` ${hint}`));

/** The rules both a crawl and a map take (docs/crawl.md), as controls; `read()` gives those set. */
function siteRules(prefix: string) {
  const include = h('textarea', { rows: 2, name: `${prefix}include_paths`, placeholder: '/docs\n/blog/*' });
  const exclude = h('textarea', { rows: 2, name: `${prefix}exclude_paths`, placeholder: '/blog/archive*' });
  const sitemap = h('select', { name: `${prefix}sitemap` }, h('option', { value: 'include' }, 'include (sitemap pages and links)'), h('option', { value: 'skip' }, 'skip (links only)'), h('option', { value: 'only' }, 'only (the seed and the sitemap pages)'));
  const boxes = {
    allow_subdomains: checkbox(`${prefix}allow_subdomains`),
    allow_external: checkbox(`${prefix}allow_external`),
    ignore_query_parameters: checkbox(`${prefix}ignore_query_parameters`),
    ignore_robots_txt: checkbox(`${prefix}ignore_robots_txt`),
  };
  const element = h(
    'div',
    {},
    h(
      'div',
      { class: 'grid top' },
      field('Include paths, one per line', include, 'A path matches a pattern it starts with; * is any run of characters. Empty: every path.'),
      field('Exclude paths, one per line', exclude),
      field('Sitemap', sitemap),
    ),
    h(
      'div',
      { class: 'checks' },
      labelled(boxes.allow_subdomains, 'allow_subdomains', 'other hosts of the same registrable domain'),
      labelled(boxes.allow_external, 'allow_external', 'any host'),
      labelled(boxes.ignore_query_parameters, 'ignore_query_parameters', 'drop the query before de-duplication'),
      labelled(boxes.ignore_robots_txt, 'ignore_robots_txt', 'do not read robots.txt'),
    ),
  );
  const read = (): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    if (lines(include.value).length > 0) out.include_paths = lines(include.value);
    if (lines(exclude.value).length > 0) out.exclude_paths = lines(exclude.value);
    if (sitemap.value !== 'include') out.sitemap = sitemap.value;
    for (const [name, box] of Object.entries(boxes)) if (box.checked) out[name] = true;
    return out;
  };
  return { element, read };
}

function numberInput(name: string, placeholder: string, min: number, max: number): HTMLInputElement {
  return h('input', { type: 'number', name, placeholder, min, max, step: 1 });
}

/** Start a crawl: POST /v1/crawl's fields (docs/crawl.md); the API validates them and names a bad one. */
function newCrawl(org: PageContext['org'], base: string, projectId: () => string, navigate: (hash: string) => void): HTMLElement {
  const errors = h('div', {});
  const url = h('input', { type: 'url', name: 'url', required: true, placeholder: 'https://docs.example.com/', size: 50 });
  const name = h('input', { type: 'text', name: 'name', maxlength: 200 });
  const environment = h('select', { name: 'environment' }, h('option', { value: 'live' }, 'live'), h('option', { value: 'test' }, 'test'));
  const limit = numberInput('limit', '100', 1, 100_000);
  const maxDepth = numberInput('max_depth', '10', 0, 1000);
  const delay = numberInput('delay_ms', '0', 0, 60_000);
  const concurrency = numberInput('concurrency', 'default', 1, 1000);
  const rules = siteRules('');
  const scrape = h('textarea', { rows: 2, name: 'scrape', placeholder: '{"response_format": "markdown"}' });
  const submit = h('button', { type: 'submit' }, 'Start crawl');
  const snippet = h('div', {});
  const body = (): Record<string, unknown> => {
    const out: Record<string, unknown> = { url: url.value.trim() };
    if (name.value.trim()) out.name = name.value.trim();
    for (const [key, input] of [['limit', limit], ['max_depth', maxDepth], ['delay_ms', delay], ['concurrency', concurrency]] as const) {
      if (input.value.trim() !== '') out[key] = Number(input.value);
    }
    Object.assign(out, rules.read());
    if (scrape.value.trim()) out.scrape = parseJson(scrape.value, 'Scrape parameters');
    return out;
  };
  const showSnippet = () => {
    let text: string;
    try {
      text = `curl -X POST ${base}/v1/crawl \\\n  -H "Authorization: Bearer $TRAWLER_API_KEY" -H "Content-Type: application/json" \\\n  -d '${JSON.stringify(body()).replaceAll("'", "'\\''")}'`;
    } catch (error) {
      text = (error as Error).message;
    }
    snippet.replaceChildren(codeBlock(text, 'Copy curl'));
  };
  const form = h(
    'form',
    { class: 'crawl-form' },
    h('div', { class: 'row' }, field('Start URL', url), field('Crawl name', name), field('Environment', environment)),
    h('div', { class: 'row' }, field('Limit (pages in all)', limit, '1 to 100,000; default 100'), field('Max depth', maxDepth, 'links followed from the start URL; default 10'), field('Delay per host (ms)', delay), field('Concurrency', concurrency)),
    rules.element,
    field('Scrape parameters of every page (JSON, optional)', scrape, 'Any scrape parameter but url; default response_format html. With markdown or text, add "links": true so links can be followed.'),
    submit,
  );
  form.addEventListener('input', showSnippet);
  form.addEventListener('change', showSnippet);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      errors,
      async () => {
        const crawl = await api<Crawl>('POST', `/orgs/${org.id}/projects/${projectId()}/crawl`, { environment: environment.value, crawl: body() });
        navigate(`#/o/${org.id}/crawl/${projectId()}/${crawl.id}`);
      },
      submit,
    );
  });
  showSnippet();
  return section('New crawl', form, errors, h('details', {}, h('summary', {}, 'The same crawl with curl'), snippet));
}

/** Map: a site's URLs, no scraping, no credits (POST /v1/map). */
function mapSection(org: PageContext['org'], projectId: () => string): HTMLElement {
  const errors = h('div', {});
  const out = h('div', {});
  const url = h('input', { type: 'url', name: 'map_url', required: true, placeholder: 'https://docs.example.com/', size: 50 });
  const search = h('input', { type: 'text', name: 'map_search', placeholder: 'pricing' });
  const limit = numberInput('map_limit', '5000', 1, 30_000);
  const rules = siteRules('map_');
  const submit = h('button', { type: 'submit' }, 'Map site');
  const form = h('form', {}, h('div', { class: 'row' }, field('Site URL', url), field('Only URLs containing', search), field('Limit', limit, 'default 5,000')), rules.element, submit);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void act(
      errors,
      async () => {
        const map = { url: url.value.trim(), ...(search.value.trim() ? { search: search.value.trim() } : {}), ...(limit.value ? { limit: Number(limit.value) } : {}), ...rules.read() };
        const answer = await api<{ links: string[] }>('POST', `/orgs/${org.id}/projects/${projectId()}/map`, { map });
        const text = answer.links.join('\n');
        out.replaceChildren(
          h('p', { 'data-map-count': answer.links.length }, `${answer.links.length} ${answer.links.length === 1 ? 'URL' : 'URLs'} `, copyButton(() => text, 'Copy URLs'), ' Paste them into New batch on the Batch jobs page to scrape exactly these.'),
          h('pre', { class: 'preview-text map-links' }, text),
        );
      },
      submit,
    );
  });
  return section('Map a site', form, errors, out);
}

async function onePage({ org, every }: PageContext, projectId: string, jobId: string): Promise<HTMLElement> {
  const path = `/orgs/${org.id}/projects/${projectId}/crawl/${jobId}`;
  const batchPath = `/orgs/${org.id}/projects/${projectId}/batch/${jobId}`;
  const body = h('div', {});
  const errors = h('div', {});
  const pages = itemTable(org.id, batchPath, { crawl: true });
  let shownFinished = -1;
  const render = (crawl: Crawl) => {
    const control = (action: 'cancel' | 'retry', label: string, enabled: boolean) => jobControl(errors, batchPath, action, label, enabled, refresh);
    const facts = crawl.crawl;
    const skippedRows = Object.entries(facts.skipped).filter(([, count]) => count > 0);
    body.replaceChildren(
      h('h1', {}, 'Crawl ', h('code', {}, crawl.name ?? crawl.id)),
      h('p', { class: 'inline-code' }, 'Crawl id ', h('code', { 'data-job-id': crawl.id }, crawl.id), copyButton(() => crawl.id, 'Copy id'), ' · start URL ', h('a', { href: facts.url, target: '_blank', rel: 'noopener noreferrer' }, facts.url)),
      section(
        'Progress',
        ...progressLines(crawl, 'pages'),
        h(
          'p',
          { 'data-crawl-counts': '' },
          h('strong', {}, `${facts.discovered} discovered`),
          ` (distinct URLs seen): ${facts.queued} queued, ${facts.discovered - facts.queued} left out · robots.txt ${facts.robots_txt}`,
        ),
        facts.stopped_reason ? h('p', { class: 'alert' }, `Stopped adding pages: ${facts.stopped_reason}`) : null,
        crawl.error_message ? h('p', { class: 'alert' }, crawl.error_message) : null,
        h(
          'div',
          { class: 'row' },
          control('cancel', 'Cancel', cancellable(crawl)),
          control('retry', 'Retry failed', crawl.progress.failed > 0),
          h('a', { class: 'button', href: `/api${batchPath}/results`, download: `crawl-${crawl.id}.ndjson` }, 'Download results (JSONL)'),
        ),
      ),
      section(
        'Left out, by reason',
        table(
          ['Reason', 'URLs', 'Meaning'],
          skippedRows.map(([reason, count]) => [h('code', {}, reason), count, SKIP_MEANING[reason] ?? '']),
          'No URL left out so far.',
        ),
      ),
      section(
        'By depth',
        table(
          ['Depth', 'Queued', 'Left out'],
          facts.by_depth.map((row) => [row.depth, row.queued, Object.entries(row.skipped).map(([reason, count]) => `${reason} ${count}`).join(', ') || '—']),
          'Nothing yet.',
        ),
      ),
      section(
        'Rules',
        h('p', { class: 'muted' }, `Environment ${crawl.environment ?? '—'} · submitted ${when(crawl.submitted_at)} · finished ${when(crawl.finished_at)}`),
        h('pre', { class: 'preview-text' }, JSON.stringify({ ...facts.rules, scrape: crawl.params ?? {} }, null, 2)),
      ),
      section('Pages', pages.element),
    );
  };
  let shown = '';
  const refresh = async () => {
    const crawl = await api<Crawl>('GET', path);
    // Re-built only when something changed, so a button is not replaced under the pointer every second.
    const state = JSON.stringify(crawl);
    if (state !== shown) render(crawl);
    shown = state;
    if (crawl.progress.completed !== shownFinished) {
      shownFinished = crawl.progress.completed;
      await pages.refresh();
    }
  };
  await refresh();
  every(1000, () => void refresh().catch(() => undefined));
  return h('div', {}, h('p', {}, h('a', { href: `#/o/${org.id}/crawl` }, '← Crawls')), errors, body);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new Error(`${what}: not JSON (${(error as Error).message})`);
  }
}

