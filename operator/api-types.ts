/** The custom resources' API group and the names the operator and the CRDs share. */
export const API_GROUP = 'trawler.dev';
export const API_VERSION = 'v1alpha1';
export const GROUP_VERSION = `${API_GROUP}/${API_VERSION}`;

export const SCRAPE_ENGINE_KIND = 'ScrapeEngine';
export const SCRAPE_ENGINE_PLURAL = 'scrapeengines';
export const WORKER_POOL_KIND = 'WorkerPool';
export const WORKER_POOL_PLURAL = 'workerpools';

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

export const CONDITION = {
  available: 'Available',
  progressing: 'Progressing',
  degraded: 'Degraded',
} as const;
export type ConditionType = (typeof CONDITION)[keyof typeof CONDITION];

/** Reasons of the conditions, CamelCase as Kubernetes expects. */
export const REASON = {
  // healthy states
  asExpected: 'AsExpected',
  engineDeployable: 'EngineDeployable',
  minimumReplicasReady: 'MinimumReplicasReady',
  scaledToZero: 'ScaledToZero',
  rolloutComplete: 'RolloutComplete',
  // transitional states
  replicasNotReady: 'ReplicasNotReady',
  rollingOut: 'RollingOut',
  notDeployed: 'NotDeployed',
  // problems
  invalidSpec: 'InvalidSpec',
  engineNotDeployable: 'EngineNotDeployable',
  missingNatsUrl: 'MissingNatsUrl',
  engineNotFound: 'EngineNotFound',
  engineInvalid: 'EngineInvalid',
  deploymentNotOwned: 'DeploymentNotOwned',
  replicaFailure: 'ReplicaFailure',
} as const;
export type Reason = (typeof REASON)[keyof typeof REASON];

/** A queue key: `<Kind>/<namespace>/<name>`. */
export type ObjectKind = typeof SCRAPE_ENGINE_KIND | typeof WORKER_POOL_KIND;

export function objectKey(kind: ObjectKind, namespace: string, name: string): string {
  return `${kind}/${namespace}/${name}`;
}

export function parseObjectKey(key: string): { kind: ObjectKind; namespace: string; name: string } {
  const [kind, namespace, name] = key.split('/');
  if ((kind !== SCRAPE_ENGINE_KIND && kind !== WORKER_POOL_KIND) || !namespace || !name) {
    throw new Error(`malformed object key "${key}"`);
  }
  return { kind, namespace, name };
}
