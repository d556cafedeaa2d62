import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ScrapeEngineSpecSchema, WorkerPoolSpecSchema } from '../../operator/spec-schemas.js';
import { ProxyPoolSpecSchema } from '../../operator/proxy-pool-resource.js';
import { operatorPermissions, readRepoFile as read, repoRoot as root, withPlaceholders } from './support/chart-text.js';

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  required?: string[];
  enum?: string[];
}
interface Crd {
  kind: string;
  metadata: { name: string };
  spec: {
    group: string;
    scope: string;
    names: { kind: string; plural: string };
    versions: Array<{ name: string; served: boolean; storage: boolean; subresources: Record<string, unknown>; schema: { openAPIV3Schema: SchemaNode } }>;
  };
}

const crd = (file: string) => load(read(`crds/${file}`)) as Crd;

describe('CustomResourceDefinitions', () => {
  it('declare trawler.dev/v1alpha1 with status subresources, and scale for WorkerPool', () => {
    const engine = crd('scrapeengines.trawler.dev.yaml');
    const pool = crd('workerpools.trawler.dev.yaml');
    for (const c of [engine, pool]) {
      expect(c.kind).toBe('CustomResourceDefinition');
      expect(c.spec.group).toBe('trawler.dev');
      expect(c.spec.scope).toBe('Namespaced');
      expect(c.spec.versions.map((v) => [v.name, v.served, v.storage])).toEqual([['v1alpha1', true, true]]);
      expect(c.spec.versions[0]!.subresources.status).toEqual({});
    }
    expect(pool.spec.versions[0]!.subresources.scale).toEqual({
      specReplicasPath: '.spec.replicas',
      statusReplicasPath: '.status.replicas',
      labelSelectorPath: '.status.selector',
    });
    expect(engine.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.engine!.enum).toEqual(['fetch', 'obscura', 'chromium', 'camoufox']);
  });

  it('have a schema field for every spec field the operator reads, and no other', () => {
    const specOf = (c: Crd) => Object.keys(c.spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!).sort();
    expect(specOf(crd('scrapeengines.trawler.dev.yaml'))).toEqual(Object.keys(ScrapeEngineSpecSchema.shape).sort());
    expect(specOf(crd('workerpools.trawler.dev.yaml'))).toEqual(Object.keys(WorkerPoolSpecSchema.shape).sort());
    expect(specOf(crd('proxypools.trawler.dev.yaml'))).toEqual(Object.keys(ProxyPoolSpecSchema.shape).sort());
    const exitFields = Object.keys(crd('proxypools.trawler.dev.yaml').spec.versions[0]!.schema.openAPIV3Schema.properties!.spec!.properties!.exits!.items!.properties!).sort();
    expect(exitFields).toEqual(Object.keys(ProxyPoolSpecSchema.shape.exits.element.shape).sort());
  });

  it('are the same files in the chart', () => {
    for (const file of readdirSync(join(root, 'crds')).filter((f) => f.endsWith('.yaml'))) {
      expect(read(`charts/trawler/crds/${file}`)).toBe(read(`crds/${file}`));
    }
  });
});

describe('Helm chart', () => {
  it('has a valid Chart.yaml and values.yaml', () => {
    expect(load(read('charts/trawler/Chart.yaml'))).toMatchObject({ apiVersion: 'v2', name: 'trawler' });
    const values = load(read('charts/trawler/values.yaml')) as { engines: Record<string, { spec: unknown }> };
    for (const engine of Object.values(values.engines)) expect(ScrapeEngineSpecSchema.safeParse(engine.spec).success).toBe(true);
  });

  it('templates balance their actions and parse as YAML once actions are replaced by placeholders', () => {
    const dir = join(root, 'charts/trawler/templates');
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
      const text = readFileSync(join(dir, file), 'utf8');
      const opens = text.match(/\{\{-?\s*(if|range|with|define)\b/g)?.length ?? 0;
      const ends = text.match(/\{\{-?\s*end\s*-?\}\}/g)?.length ?? 0;
      expect(ends, file).toBe(opens);
      const rendered = withPlaceholders(text);
      expect(() => loadAll(rendered), `${file}\n${rendered}`).not.toThrow();
    }
  });

  it('grants the operator exactly the verbs operator/cluster.ts and operator/watch.ts use, and finalizers for blockOwnerDeletion', () => {
    expect(operatorPermissions()).toEqual(
      [
        ...['get', 'list', 'watch'].flatMap((verb) => [`trawler.dev scrapeengines ${verb}`, `trawler.dev workerpools ${verb}`, `trawler.dev proxypools ${verb}`]),
        'trawler.dev scrapeengines/status patch',
        'trawler.dev workerpools/status patch',
        'trawler.dev proxypools/status patch',
        'trawler.dev workerpools/finalizers update',
        'trawler.dev proxypools/finalizers update',
        ...['get', 'list', 'watch', 'create', 'update'].map((verb) => `core secrets ${verb}`),
        ...['get', 'list', 'watch', 'create', 'update', 'delete'].map((verb) => `apps deployments ${verb}`),
      ].sort(),
    );
  });

  it('refuses to render the gateway without a database rather than point it at a Secret that does not exist', () => {
    const gateway = read('charts/trawler/templates/gateway.yaml');
    const values = load(read('charts/trawler/values.yaml')) as { database: { url: string; existingSecret: string } };
    expect(values.database).toMatchObject({ url: '', existingSecret: '' });
    const guard = gateway.indexOf('{{- if not (or .Values.database.url .Values.database.existingSecret) }}');
    expect(guard).toBeGreaterThan(gateway.indexOf('{{- if .Values.gateway.enabled }}'));
    expect(gateway.slice(guard).split('\n')[1]).toMatch(/^\{\{- fail "trawler: the gateway needs a database; set database\.url .* or database\.existingSecret/);
    expect(gateway.indexOf('trawler.databaseSecret')).toBeGreaterThan(guard);
  });

  it('gives the gateways and the render engines (only) the remote-browser settings, under what an engine sets itself', () => {
    const values = load(read('charts/trawler/values.yaml')) as { remoteBrowser: { enabled: boolean; port: number; sessions: number; networkPolicy: { enabled: boolean } } };
    expect(values.remoteBrowser).toEqual({ enabled: true, port: 9300, sessions: 4, networkPolicy: { enabled: false } });
    expect(ScrapeEngineSpecSchema.safeParse({ engine: 'chromium', remoteBrowser: { enabled: true, port: 9300, sessions: 4 } }).success).toBe(true);
    const engines = read('charts/trawler/templates/engines.yaml');
    expect(engines).toContain(
      '{{- $browserDefaults := dict "remoteBrowser" (dict "enabled" .Values.remoteBrowser.enabled "port" .Values.remoteBrowser.port "sessions" .Values.remoteBrowser.sessions) }}',
    );
    expect(engines).toContain('{{- if has $engine.spec.engine (list "chromium" "obscura") }}{{ $defaults = merge (deepCopy $browserDefaults) $pullDefaults }}{{ end }}');
    expect(engines).toContain('{{- toYaml (merge (deepCopy $engine.spec) $defaults) | nindent 2 }}');
    expect(read('charts/trawler/templates/gateway.yaml')).toContain('- { name: BROWSER_ROUTE_ENABLED, value: {{ .Values.remoteBrowser.enabled | quote }} }');
  });

  it('lets only the gateway pods reach the render workers\' relay port when the NetworkPolicy is on', () => {
    const text = read('charts/trawler/templates/browser-relay-networkpolicy.yaml');
    expect(text.split('\n')[0]).toBe('{{- if and .Values.remoteBrowser.enabled .Values.remoteBrowser.networkPolicy.enabled }}');
    const [policy] = loadAll(withPlaceholders(text)) as Array<{
      kind: string;
      spec: { podSelector: { matchLabels: Record<string, string>; matchExpressions: unknown[] }; policyTypes: string[]; ingress: Array<{ from?: Array<{ podSelector: { matchLabels: Record<string, string> } }>; ports: unknown[] }> };
    }>;
    expect(policy!.kind).toBe('NetworkPolicy');
    expect(policy!.spec.podSelector).toEqual({
      matchLabels: { 'app.kubernetes.io/managed-by': 'trawler-operator' },
      matchExpressions: [{ key: 'trawler.dev/engine', operator: 'In', values: ['chromium', 'obscura'] }],
    });
    expect(policy!.spec.policyTypes).toEqual(['Ingress']);
    // The port names are the operator's container ports.
    expect(policy!.spec.ingress).toEqual([
      { from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'x', 'app.kubernetes.io/component': 'gateway' } } }], ports: [{ port: 'browser-relay', protocol: 'TCP' }] },
      { ports: [{ port: 'metrics', protocol: 'TCP' }] },
    ]);
  });

  it('gives chart-made ScrapeEngines the chart image pull policy and pull secrets, under what the engine sets itself', () => {
    const engines = read('charts/trawler/templates/engines.yaml');
    expect(engines).toContain('{{- with .Values.image.pullPolicy }}{{ $_ := set $pullDefaults "imagePullPolicy" . }}{{ end }}');
    expect(engines).toContain('{{- with .Values.imagePullSecrets }}{{ $_ := set $pullDefaults "imagePullSecrets" . }}{{ end }}');
    // Sprig's merge keeps the destination's keys: the engine's own spec wins over the defaults.
    expect(engines).toContain('{{- $defaults := $pullDefaults }}');
    expect(engines).toContain('{{- toYaml (merge (deepCopy $engine.spec) $defaults) | nindent 2 }}');
    const values = load(read('charts/trawler/values.yaml')) as { image: { pullPolicy: string }; engines: Record<string, { spec: object }> };
    for (const engine of Object.values(values.engines)) {
      const merged = { imagePullPolicy: values.image.pullPolicy, imagePullSecrets: [{ name: 'regcred' }], ...engine.spec };
      expect(ScrapeEngineSpecSchema.safeParse(merged).success).toBe(true);
    }
  });
});
