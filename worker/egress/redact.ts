import type { ProxyUse } from '../../lib/protocol/index.js';

/** How a caller's proxy appears in results, logs and diagnostics: `scheme://host:port`, never credentials. */
export function redactProxy(proxy: string | null): ProxyUse {
  if (proxy === null) return { source: 'direct', endpoint: null, country: null };
  const url = new URL(proxy);
  const port = url.port || { 'http:': '80', 'https:': '443' }[url.protocol] || '1080';
  return { source: 'custom', endpoint: `${url.protocol}//${url.hostname}:${port}`, country: null };
}
