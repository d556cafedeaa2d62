import type { Logger } from '../lib/log.js';
import type { Cluster } from './cluster.js';
import type { DeploymentDefaults } from './desired-deployment.js';

/** What a reconcile needs, passed in (no module state, no environment reads). */
export interface ReconcileContext {
  cluster: Cluster;
  defaults: DeploymentDefaults;
  logger: Logger;
  now: () => Date;
  /** Names of the WorkerPools in a namespace whose engineRef names an engine, from the watch cache. */
  poolsUsingEngine: (namespace: string, engineName: string) => string[];
}
