import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
// js-yaml comes with @kubernetes/client-node; its own loadYaml would map fields onto its model classes.
import { load, loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { ScrapeEngineSpecSchema, WorkerPoolSpecSchema } from '../../operator/resources.js';

const root = join(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

interface SchemaNode {
  type?: string;
  properties?: Record<string, SchemaNode>;
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
      // Lines that are only control actions vanish; value actions become a scalar; include/toYaml blocks become {}.
      const rendered = text
        .split('\n')
        .filter((line) => !/^\s*\{\{-?\s*(if|else|end|range|with|define)\b.*\}\}\s*$/.test(line) && !/^\s*\{\{-?\s*(if|range|with)\b[^}]*\}\}\s*$/.test(line))
        .map((line) => line.replace(/^(\s*)\{\{-\s*(include|toYaml)[^}]*\}\}\s*$/, '$1placeholder: {}'))
        .map((line) => line.replace(/:\s*\{\{-\s*toYaml[^}]*\}\}\s*$/, ': {}'))
        .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'x'))
        .join('\n');
      expect(() => loadAll(rendered), `${file}\n${rendered}`).not.toThrow();
    }
  });
});
