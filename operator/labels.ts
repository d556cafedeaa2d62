export const MANAGED_BY = 'trawler-operator';

/** Labels on every Deployment (and its pods) the operator manages. */
export const LABEL = {
  name: 'app.kubernetes.io/name',
  instance: 'app.kubernetes.io/instance',
  component: 'app.kubernetes.io/component',
  partOf: 'app.kubernetes.io/part-of',
  managedBy: 'app.kubernetes.io/managed-by',
  engine: 'trawler.dev/engine',
  pool: 'trawler.dev/pool',
  scrapeEngine: 'trawler.dev/scrape-engine',
} as const;

/** Label selector of every Deployment the operator watches. */
export const MANAGED_SELECTOR = `${LABEL.managedBy}=${MANAGED_BY}`;

/** Hash of the desired Deployment; a Deployment whose annotation matches needs no update. */
export const TEMPLATE_HASH_ANNOTATION = 'trawler.dev/template-hash';
