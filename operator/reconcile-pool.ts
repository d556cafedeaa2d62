import type { V1Deployment } from '@kubernetes/client-node';
import { LABEL, TEMPLATE_HASH_ANNOTATION } from './labels.js';
import { parseSpec, type WorkerPoolResource, WorkerPoolSpecSchema } from './spec-schemas.js';
import { REASON } from './condition-types.js';
import type { StoredObject } from './stored-object.js';
import { desiredDeployment, selectorLabels } from './desired-deployment.js';
import { checkEngine } from './engine-validation.js';
import { poolStatus, type PoolObservation, type PoolProblem } from './pool-status.js';
import type { ReconcileContext } from './reconcile-context.js';
import { statusUpToDate } from './status-write.js';

/** A pool's name is a label value on its Deployment and pods. */
const MAX_POOL_NAME = 63;

/**
 * Brings a WorkerPool's Deployment to what its spec and its ScrapeEngine ask for, then writes the
 * pool's status once. A pool that is gone or being deleted needs nothing: its Deployments are
 * garbage-collected through their owner reference, and recreating one would race that. Errors
 * propagate, so the queue retries with backoff.
 */
export async function reconcilePool(ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const stored = await ctx.cluster.getPool(namespace, name);
  if (!stored || stored.metadata.deletionTimestamp) return;
  const seen = await deployPool(ctx, stored);
  const status = poolStatus(stored, seen, ctx.now());
  if (statusUpToDate(stored.status, status)) return;
  await ctx.cluster.patchPoolStatus(namespace, name, status);
  ctx.logger.info({ available: status.conditions[0]?.status, reason: status.conditions[0]?.reason }, 'workerpool status updated');
}

async function deployPool(ctx: ReconcileContext, stored: StoredObject): Promise<PoolObservation> {
  const { namespace, name } = stored.metadata;
  const parsed = parseSpec(WorkerPoolSpecSchema, stored.spec);
  if (!parsed.ok) return problemObservation(ctx, stored, 0, { reason: REASON.invalidSpec, message: parsed.message });
  const spec = parsed.spec;
  if (name.length > MAX_POOL_NAME) {
    const message = `metadata.name must be at most ${MAX_POOL_NAME} characters`;
    return problemObservation(ctx, stored, spec.replicas, { reason: REASON.invalidSpec, message });
  }
  const engineStored = await ctx.cluster.getEngine(namespace, spec.engineRef.name);
  if (!engineStored) {
    const message = `ScrapeEngine ${spec.engineRef.name} not found in namespace ${namespace}`;
    return problemObservation(ctx, stored, spec.replicas, { reason: REASON.engineNotFound, message });
  }
  const engineCheck = checkEngine(engineStored, ctx.defaults.natsUrl);
  if (!engineCheck.ok) {
    const reason = engineCheck.reason === REASON.engineNotDeployable ? REASON.engineNotDeployable : REASON.engineInvalid;
    const message = `ScrapeEngine ${spec.engineRef.name}: ${engineCheck.message}`;
    return problemObservation(ctx, stored, spec.replicas, { reason, message }, engineCheck.engineName);
  }
  const pool: WorkerPoolResource = { metadata: stored.metadata, spec };
  const engine = engineCheck.engine;
  const desired = desiredDeployment(pool, engine, ctx.defaults);
  const deploymentName = desired.metadata?.name ?? '';
  const observation = {
    desiredReplicas: spec.replicas,
    engine: engine.spec.engine,
    deploymentName,
    selector: labelSelector(selectorLabels(pool, engine)),
  };
  const actual = await ctx.cluster.getDeployment(namespace, deploymentName);
  if (actual && !ownedBy(actual, stored.metadata.uid)) {
    const problem = { reason: REASON.deploymentNotOwned, message: `deployment ${deploymentName} exists and is not owned by this WorkerPool` };
    return { ...observation, deployments: [], problem };
  }
  const current = await applyDeployment(ctx, actual, desired);
  await removeStaleDeployments(ctx, stored, deploymentName);
  return { ...observation, deployments: [current] };
}

async function applyDeployment(ctx: ReconcileContext, actual: V1Deployment | undefined, desired: V1Deployment): Promise<V1Deployment> {
  if (!actual) {
    ctx.logger.info({ deployment: desired.metadata?.name }, 'creating deployment');
    return ctx.cluster.createDeployment(desired);
  }
  if (!needsUpdate(actual, desired)) return actual;
  ctx.logger.info({ deployment: desired.metadata?.name }, 'updating deployment');
  const { status: _status, ...withoutStatus } = actual;
  return ctx.cluster.replaceDeployment({
    ...withoutStatus,
    metadata: {
      ...actual.metadata,
      labels: { ...actual.metadata?.labels, ...desired.metadata?.labels },
      annotations: { ...actual.metadata?.annotations, ...desired.metadata?.annotations },
      ownerReferences: desired.metadata?.ownerReferences,
    },
    spec: desired.spec,
  });
}

/** The hash annotation covers everything the operator sets; replicas are checked too, against `kubectl scale deployment`. */
function needsUpdate(actual: V1Deployment, desired: V1Deployment): boolean {
  const hash = (d: V1Deployment) => d.metadata?.annotations?.[TEMPLATE_HASH_ANNOTATION];
  return hash(actual) !== hash(desired) || actual.spec?.replicas !== desired.spec?.replicas;
}

function ownedBy(deployment: V1Deployment, uid: string): boolean {
  return (deployment.metadata?.ownerReferences ?? []).some((ref) => ref.uid === uid && ref.controller === true);
}

/** Deployments of this pool under another name: left behind when the pool moved to an engine of another kind. */
async function removeStaleDeployments(ctx: ReconcileContext, pool: StoredObject, keep: string): Promise<void> {
  const owned = await ownedDeployments(ctx, pool);
  for (const deployment of owned) {
    const name = deployment.metadata?.name;
    if (!name || name === keep) continue;
    ctx.logger.info({ deployment: name }, 'deleting deployment of a former engine');
    await ctx.cluster.deleteDeployment(pool.metadata.namespace, name);
  }
}

async function ownedDeployments(ctx: ReconcileContext, pool: StoredObject): Promise<V1Deployment[]> {
  const all = await ctx.cluster.listDeployments(pool.metadata.namespace, `${LABEL.pool}=${pool.metadata.name}`);
  return all.filter((d) => ownedBy(d, pool.metadata.uid));
}

/** The pool cannot be deployed as asked; whatever it already runs keeps running and is counted. */
async function problemObservation(
  ctx: ReconcileContext,
  pool: StoredObject,
  desiredReplicas: number,
  problem: PoolProblem,
  engine = '',
): Promise<PoolObservation> {
  ctx.logger.warn({ reason: problem.reason, detail: problem.message }, 'workerpool cannot be deployed');
  const deployments = await ownedDeployments(ctx, pool);
  return {
    desiredReplicas,
    engine,
    deploymentName: deployments[0]?.metadata?.name ?? '',
    selector: labelSelector({ [LABEL.pool]: pool.metadata.name }),
    deployments,
    problem,
  };
}

function labelSelector(labels: Record<string, string>): string {
  return Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
}
