import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { readRepoFile } from '../operator/support/chart-text.js';
import { promtool } from './promtool.js';
import { dashboardQueries, renderDocuments } from './render-chart.js';

const RULES_TEMPLATE = 'charts/trawler/templates/prometheusrule.yaml';
const DASHBOARD_TEMPLATE = 'charts/trawler/templates/grafana-dashboard.yaml';
const enabled = { prometheusRule: { enabled: true }, grafanaDashboard: { enabled: true } };
const dir = mkdtempSync(join(tmpdir(), 'trawler-chart-kit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Rule { alert?: string; record?: string; expr: string; for?: string; labels?: Record<string, string>; annotations?: Record<string, string> }
type RuleGroups = { groups: Array<{ name: string; rules: Rule[] }> };

function renderedRuleGroups(values: Record<string, unknown> = enabled): RuleGroups {
  const [rule] = renderDocuments(RULES_TEMPLATE, { values });
  expect(rule).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
  return (rule as { spec: RuleGroups }).spec;
}

const withGrafanaVariables = (expr: string) => expr.replaceAll('$__rate_interval', '5m').replaceAll('$__range', '6h').replaceAll('$engine', '.*');

function writeYaml(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, dump(value, { lineWidth: -1 }));
  return path;
}

describe('the chart observability kit', () => {
  it('renders nothing unless switched on', () => {
    expect(renderDocuments(RULES_TEMPLATE)).toEqual([]);
    expect(renderDocuments(DASHBOARD_TEMPLATE)).toEqual([]);
  });

  it('ships the dashboard in a ConfigMap with the Grafana sidecar label', () => {
    const [configMap] = renderDocuments(DASHBOARD_TEMPLATE, { values: enabled }) as Array<{ kind: string; metadata: { labels: Record<string, string> }; data: Record<string, string> }>;
    expect(configMap!.kind).toBe('ConfigMap');
    expect(configMap!.metadata.labels).toMatchObject({ grafana_dashboard: '1', 'app.kubernetes.io/part-of': 'trawler' });
    expect(JSON.parse(configMap!.data['trawler.json']!)).toEqual(JSON.parse(readRepoFile('charts/trawler/dashboards/trawler.json')));
  });

  it('has the panels the operators asked for', () => {
    const dashboard = JSON.parse(readRepoFile('charts/trawler/dashboards/trawler.json')) as { uid: string; panels: Array<{ title: string; type: string }> };
    const titles = dashboard.panels.filter((p) => p.type !== 'row').map((p) => p.title);
    for (const wanted of [/scrapes per second by engine and outcome/i, /latency per engine/i, /credits charged/i, /capacity and jobs in flight/i, /batch backlog/i, /render failures/i, /reconcile errors/i, /proxy pool exits by state/i]) {
      expect(titles.some((t) => wanted.test(t)), String(wanted)).toBe(true);
    }
  });

  it('rules and dashboard queries pass promtool check rules', async () => {
    const groups = renderedRuleGroups();
    expect(groups.groups[0]!.rules.map((r) => r.alert)).toEqual([
      'TrawlerEngineHasNoWorkers', 'TrawlerScrapeErrorRatioHigh', 'TrawlerJobLatencyHigh', 'TrawlerBatchBacklogGrowing', 'TrawlerProxyPoolExhausted', 'TrawlerProxyPoolFileRefused', 'TrawlerOperatorReconcileFailing', 'TrawlerWorkerPoolBelowDesired',
    ]);
    const rules = await promtool(['check', 'rules', writeYaml('rules.yaml', groups)]);
    expect(rules.output).toContain('SUCCESS: 8 rules found');
    expect(rules.code).toBe(0);
    // Dashboard queries as recording rules: the same PromQL parser checks them.
    const queries = dashboardQueries();
    const asRecords = { groups: [{ name: 'dashboard', rules: queries.map((expr, i) => ({ record: `dashboard:query_${i}`, expr: withGrafanaVariables(expr) })) }] };
    const dashboard = await promtool(['check', 'rules', writeYaml('dashboard-queries.yaml', asRecords)]);
    expect(dashboard.output).toContain(`SUCCESS: ${queries.length} rules found`);
    expect(dashboard.code).toBe(0);
  });

  it('each alert fires on the situation it describes and not before (promtool test rules, alert-scenarios.yaml)', async () => {
    const groups = renderedRuleGroups();
    // Annotations are checked by promtool check rules above; here only expressions, durations and labels.
    for (const rule of groups.groups[0]!.rules) delete rule.annotations;
    const rulesFile = writeYaml('rules-under-test.yaml', groups);
    const scenarios = load(readRepoFile('test/observability/alert-scenarios.yaml')) as { tests: Array<{ alert_rule_test: Array<{ alertname: string }> }> };
    const alertsChecked = new Set(scenarios.tests.flatMap((t) => t.alert_rule_test.map((c) => c.alertname)));
    expect([...alertsChecked].sort()).toEqual(groups.groups[0]!.rules.map((r) => r.alert).sort());
    const tests = { rule_files: [rulesFile], ...scenarios };
    const result = await promtool(['test', 'rules', writeYaml('alerts-test.yaml', tests)]);
    expect(result.output).toContain('SUCCESS');
    expect(result.code).toBe(0);
    expect(readFileSync(rulesFile, 'utf8')).not.toContain('annotations');
  });
});
