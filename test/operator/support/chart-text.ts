import { readFileSync } from 'node:fs';
import { join } from 'node:path';
// js-yaml comes with @kubernetes/client-node; its own loadYaml would map fields onto its model classes.
import { loadAll } from 'js-yaml';

export const repoRoot = join(import.meta.dirname, '../../..');
export const readRepoFile = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/**
 * A chart template as YAML without Helm (not installed here): lines that are only control, comment,
 * assignment or `fail` actions vanish; include/toYaml blocks become `placeholder: {}`; other actions `x`.
 */
export function withPlaceholders(template: string): string {
  const silentLine = /^\s*\{\{-?\s*(if|else|end|range|with|define|\/\*|\$\w+\s*:?=|fail\b).*\}\}\s*$/;
  return template
    .split('\n')
    .filter((line) => !silentLine.test(line))
    .map((line) => line.replace(/^(\s*)\{\{-\s*(include|toYaml)[^}]*\}\}\s*$/, '$1placeholder: {}'))
    .map((line) => line.replace(/:\s*\{\{-\s*toYaml[^}]*\}\}\s*$/, ': {}'))
    .map((line) => line.replace(/\{\{[^}]*\}\}/g, 'x'))
    .join('\n');
}

export interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The operator ClusterRole's rules, as one `group resource verb` string per permission, sorted. */
export function operatorPermissions(): string[] {
  const docs = loadAll(withPlaceholders(readRepoFile('charts/trawler/templates/operator-rbac.yaml'))) as Array<{ kind?: string; rules?: PolicyRule[] }>;
  const role = docs.find((d) => d?.kind === 'ClusterRole');
  if (!role?.rules) throw new Error('operator-rbac.yaml has no ClusterRole with rules');
  return role.rules.flatMap((rule) => rule.apiGroups.flatMap((g) => rule.resources.flatMap((r) => rule.verbs.map((v) => `${g || 'core'} ${r} ${v}`)))).sort();
}
