import type { ProxyUse, ScrapeJob } from '../../lib/protocol/index.js';

/** How a caller's proxy appears in results, logs and diagnostics: `scheme://host:port`, never credentials. */
export function redactProxy(proxy: string | null): ProxyUse {
  if (proxy === null) return { source: 'direct', endpoint: null, country: null };
  const url = new URL(proxy);
  const port = url.port || { 'http:': '80', 'https:': '443' }[url.protocol] || '1080';
  return { source: 'custom', endpoint: `${url.protocol}//${url.hostname}:${port}`, country: null };
}

/**
 * Where one job's traffic leaves: the managed pool exit the gateway chose (a trusted address: the
 * deployment's own, docs/ssrf.md "Pool exits"), else the caller's proxy (checked), else direct.
 */
export interface JobRoute {
  upstreamProxy: string | null;
  /** A deployment's pool exit: its host may be private; the target is still checked. */
  trustedUpstream: boolean;
  use: ProxyUse;
}

export function routeOf(job: Pick<ScrapeJob, 'exit' | 'params'>): JobRoute {
  if (job.exit) {
    return { upstreamProxy: job.exit.url, trustedUpstream: true, use: { source: 'pool', endpoint: job.exit.id, country: job.exit.country } };
  }
  return { upstreamProxy: job.params.proxy, trustedUpstream: false, use: redactProxy(job.params.proxy) };
}
