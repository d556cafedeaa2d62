import { dump, load, loadAll } from 'js-yaml';
import { readRepoFile } from '../operator/support/chart-text.js';

/**
 * Helm is not installed here, so the chart's observability templates are rendered by this stand-in,
 * which knows exactly the constructs they use, one per line: `if`/`with`/`end` blocks, `include
 * "trawler.labels"`, `toYaml . | nindent N` (alone or in a one-line `with`), `.Files.Get ... | nindent N`, `.Values` paths with
 * `default` and `quote`, `.Release.Name/Namespace`, and Helm's raw strings ({{`...`}}) that carry
 * Prometheus's own templates. Anything else fails loudly rather than rendering wrong.
 */
export interface RenderOptions {
  /** Merged over values.yaml, like `helm --set`. */
  values?: Record<string, unknown>;
  release?: { name: string; namespace: string };
}

const LABELS = { 'app.kubernetes.io/part-of': 'trawler', 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'trawler' };

export function chartValues(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return merge(load(readRepoFile('charts/trawler/values.yaml')) as Record<string, unknown>, overrides);
}

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    out[key] = isObject(current) && isObject(value) ? merge(current, value) : value;
  }
  return out;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const truthy = (value: unknown) => !(value === undefined || value === null || value === false || value === '' || value === 0 || (isObject(value) && Object.keys(value).length === 0));
const indent = (text: string, n: number) => text.split('\n').map((line) => (line ? ' '.repeat(n) + line : line)).join('\n');

export function renderTemplate(path: string, options: RenderOptions = {}): string {
  const values = chartValues(options.values);
  const release = options.release ?? { name: 'trawler', namespace: 'scraping' };
  const lookup = (ref: string, dot: unknown): unknown => {
    if (ref === '.') return dot;
    if (ref === '.Release.Name') return release.name;
    if (ref === '.Release.Namespace') return release.namespace;
    if (!ref.startsWith('.Values.')) throw new Error(`render-chart: unsupported reference ${ref} in ${path}`);
    return ref.slice('.Values.'.length).split('.').reduce<unknown>((node, key) => (isObject(node) ? node[key] : undefined), values);
  };
  const expression = (text: string, dot: unknown): string => {
    const [head, ...pipes] = text.split('|').map((part) => part.trim());
    let value = lookup(head!, dot);
    for (const pipe of pipes) {
      const [fn, arg] = pipe.split(/\s+/);
      if (fn === 'default') value = truthy(value) ? value : lookup(arg!, dot);
      else if (fn === 'quote') value = JSON.stringify(String(value));
      else throw new Error(`render-chart: unsupported function ${fn} in ${path}`);
    }
    if (value === undefined || isObject(value)) throw new Error(`render-chart: ${text} is not a scalar in ${path}`);
    return String(value);
  };
  const blocks: Array<{ active: boolean; dot: unknown }> = [{ active: true, dot: undefined }];
  const out: string[] = [];
  for (const line of readRepoFile(path).split('\n')) {
    const frame = blocks[blocks.length - 1]!;
    const control = /^\s*\{\{-?\s*(if|with|end)\b\s*(\S*)\s*-?\}\}\s*$/.exec(line);
    if (control) {
      if (control[1] === 'end') blocks.pop();
      else {
        const value = frame.active ? lookup(control[2]!, frame.dot) : undefined;
        blocks.push({ active: frame.active && truthy(value), dot: control[1] === 'with' ? value : frame.dot });
      }
      continue;
    }
    if (!frame.active) continue;
    let match: RegExpExecArray | null;
    if ((match = /^\s*\{\{-?\s*include "trawler\.labels" \. \| nindent (\d+)\s*\}\}\s*$/.exec(line))) {
      out.push(indent(dump(LABELS).trimEnd(), Number(match[1])));
    } else if ((match = /^\s*\{\{-?\s*toYaml (\S+) \| nindent (\d+)\s*\}\}\s*$/.exec(line))) {
      out.push(indent(dump(lookup(match[1]!, frame.dot)).trimEnd(), Number(match[2])));
    } else if ((match = /^\s*\{\{-\s*\.Files\.Get "([^"]+)" \| nindent (\d+)\s*\}\}$/.exec(line))) {
      out.push(indent(readRepoFile(`charts/trawler/${match[1]}`).trimEnd(), Number(match[2])));
    } else if ((match = /^\s*\{\{-?\s*with (\S+)\s*\}\}\{\{-?\s*toYaml \. \| nindent (\d+)\s*\}\}\{\{-?\s*end\s*\}\}\s*$/.exec(line))) {
      const value = lookup(match[1]!, frame.dot);
      if (truthy(value)) out.push(indent(dump(value).trimEnd(), Number(match[2])));
    } else {
      const rendered = line.replace(/\{\{`(.*?)`\}\}|\{\{-?\s*(.*?)\s*-?\}\}/g, (_, raw: string | undefined, expr: string) => raw ?? expression(expr, frame.dot));
      out.push(rendered);
    }
  }
  if (blocks.length !== 1) throw new Error(`render-chart: unbalanced blocks in ${path}`);
  return out.join('\n');
}

/** The rendered template's YAML documents (none when the template is switched off). */
export function renderDocuments(path: string, options: RenderOptions = {}): Array<Record<string, unknown>> {
  return loadAll(renderTemplate(path, options)).filter(isObject);
}

/** Every PromQL query of the dashboard (panel targets), as written, with Grafana's variables. */
export function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readRepoFile('charts/trawler/dashboards/trawler.json')) as { panels: Array<{ targets?: Array<{ expr: string }> }> };
  return dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
}

/** Metric names (`trawler_*`) that the dashboard (queries and variables) and the rendered alert rules use. */
export function kitMetricReferences(): Map<string, string> {
  const where = new Map<string, string>();
  const rules = renderTemplate('charts/trawler/templates/prometheusrule.yaml', { values: { prometheusRule: { enabled: true } } });
  for (const [source, text] of [['dashboard', readRepoFile('charts/trawler/dashboards/trawler.json')], ['rules', rules]] as const) {
    for (const match of text.matchAll(/\btrawler_[a-z0-9_]+/g)) if (!where.has(match[0])) where.set(match[0], source);
  }
  return where;
}
