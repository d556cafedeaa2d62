/** The custom resources' API group and the names the operator and the CRDs share. */
export const API_GROUP = 'trawler.dev';
export const API_VERSION = 'v1alpha1';
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

export const SCRAPE_ENGINE_KIND = 'ScrapeEngine';
export const SCRAPE_ENGINE_PLURAL = 'scrapeengines';
export const WORKER_POOL_KIND = 'WorkerPool';
export const WORKER_POOL_PLURAL = 'workerpools';
export const PROXY_POOL_KIND = 'ProxyPool';
export const PROXY_POOL_PLURAL = 'proxypools';
