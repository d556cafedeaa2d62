import { PROXY_POOL_KIND, SCRAPE_ENGINE_KIND, WORKER_POOL_KIND } from './api-names.js';

/** A queue key: `<Kind>/<namespace>/<name>`. */
export type ObjectKind = typeof SCRAPE_ENGINE_KIND | typeof WORKER_POOL_KIND | typeof PROXY_POOL_KIND;

export function objectKey(kind: ObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export function parseObjectKey(key: string): { kind: ObjectKind; namespace: string; name: string } {
  const [kind, namespace, name] = key.split('/');
  if ((kind !== SCRAPE_ENGINE_KIND && kind !== WORKER_POOL_KIND && kind !== PROXY_POOL_KIND) || !namespace || !name) {
    throw new Error(`malformed object key "${key}"`);
  }
  return { kind, namespace, name };
}
