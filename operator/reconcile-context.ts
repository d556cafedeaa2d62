import type { Logger } from '../lib/log.js';
import type { Cluster } from './cluster.js';
import type { DeploymentDefaults } from './desired-deployment.js';
import type { ExitCandidate } from '../lib/proxy-pool/selection.js';

/** What a reconcile needs, passed in (no module state, no environment reads). */
export interface ReconcileContext {
  cluster: Cluster;
  defaults: DeploymentDefaults;
  logger: Logger;
  now: () => Date;
  /** Names of the WorkerPools in a namespace whose engineRef names an engine, from the watch cache. */
  poolsUsingEngine: (namespace: string, engineName: string) => string[];
  /** The gateways' shared exit health for a ProxyPool's exits, when the operator can read the store (DATABASE_URL). */
  exitHealth?: (candidates: ExitCandidate[]) => Promise<{ healthy: number; cooling: number; authFailed: number }>;
}
