import type { V1Deployment } from '@kubernetes/client-node';
import { CONDITION, type Reason, REASON } from './condition-types.js';
import type { StoredObject } from './stored-object.js';
import type { WorkerPoolStatus } from './resource-status.js';
import { nextConditions, type ConditionInput } from './conditions.js';

/** Why a WorkerPool cannot be deployed as asked; shown as Degraded=True. */
export interface PoolProblem {
  reason: Reason;
  message: string;
}

export interface PoolObservation {
  desiredReplicas: number;
  engine: string;
  deploymentName: string;
  selector: string;
  /** The pool's Deployments as last written or read (one when healthy). */
  deployments: readonly V1Deployment[];
  problem?: PoolProblem;
}

/** The status a WorkerPool should show for what was observed. */
export function poolStatus(pool: StoredObject, seen: PoolObservation, now: Date): WorkerPoolStatus {
  const counts = sumCounts(seen.deployments);
  const inputs = seen.problem ? problemConditions(seen.problem) : healthyConditions(seen, counts);
  return {
    observedGeneration: pool.metadata.generation,
    engine: seen.engine,
    deploymentName: seen.deploymentName,
    ...counts,
    selector: seen.selector,
    conditions: nextConditions(pool.conditions, inputs, pool.metadata.generation, now),
  };
}

type Counts = Pick<WorkerPoolStatus, 'replicas' | 'readyReplicas' | 'updatedReplicas' | 'availableReplicas'>;

function sumCounts(deployments: readonly V1Deployment[]): Counts {
  const counts: Counts = { replicas: 0, readyReplicas: 0, updatedReplicas: 0, availableReplicas: 0 };
  for (const d of deployments) {
    counts.replicas += d.status?.replicas ?? 0;
    counts.readyReplicas += d.status?.readyReplicas ?? 0;
    counts.updatedReplicas += d.status?.updatedReplicas ?? 0;
    counts.availableReplicas += d.status?.availableReplicas ?? 0;
  }
  return counts;
}

function problemConditions(problem: PoolProblem): ConditionInput[] {
  return [
    { type: CONDITION.available, status: false, reason: problem.reason, message: problem.message },
    { type: CONDITION.progressing, status: false, reason: problem.reason, message: problem.message },
    { type: CONDITION.degraded, status: true, reason: problem.reason, message: problem.message },
  ];
}

function healthyConditions(seen: PoolObservation, counts: Counts): ConditionInput[] {
  const want = seen.desiredReplicas;
  const deployment = seen.deployments[0];
  const ready = `${counts.readyReplicas}/${want} workers ready`;
  const available: ConditionInput =
    want === 0
      ? { type: CONDITION.available, status: true, reason: REASON.scaledToZero, message: 'scaled to zero workers' }
      : counts.readyReplicas >= want
        ? { type: CONDITION.available, status: true, reason: REASON.minimumReplicasReady, message: ready }
        : { type: CONDITION.available, status: false, reason: REASON.replicasNotReady, message: ready };
  const observed = (deployment?.status?.observedGeneration ?? 0) >= (deployment?.metadata?.generation ?? 0);
  const rolledOut = observed && counts.updatedReplicas >= want && counts.replicas === want;
  const progressing: ConditionInput = rolledOut
    ? { type: CONDITION.progressing, status: false, reason: REASON.rolloutComplete, message: `deployment ${seen.deploymentName} is rolled out` }
    : { type: CONDITION.progressing, status: true, reason: REASON.rollingOut, message: `${counts.updatedReplicas}/${want} workers updated` };
  const failure = deployment?.status?.conditions?.find((c) => c.type === 'ReplicaFailure' && c.status === 'True');
  const degraded: ConditionInput = failure
    ? { type: CONDITION.degraded, status: true, reason: REASON.replicaFailure, message: failure.message ?? 'pods cannot be created' }
    : { type: CONDITION.degraded, status: false, reason: REASON.asExpected, message: '' };
  return [available, progressing, degraded];
}
