import { CONDITION, REASON } from './condition-types.js';
import type { ScrapeEngineStatus } from './resource-status.js';
import { nextConditions, type ConditionInput } from './conditions.js';
import { checkEngine } from './engine-validation.js';
import type { ReconcileContext } from './reconcile-context.js';
import { statusUpToDate } from './status-write.js';

/**
 * Writes a ScrapeEngine's status: whether it can be deployed and which pools use it. Its pools are
 * re-reconciled by the watch wiring on every engine event, not from here.
 */
export async function reconcileEngine(ctx: ReconcileContext, namespace: string, name: string): Promise<void> {
  const stored = await ctx.cluster.getEngine(namespace, name);
  if (!stored || stored.metadata.deletionTimestamp) return;
  const check = checkEngine(stored, ctx.defaults.natsUrl);
  const pools = [...ctx.poolsUsingEngine(namespace, name)].sort();
  const inputs: ConditionInput[] = check.ok
    ? [
        { type: CONDITION.available, status: true, reason: REASON.engineDeployable, message: `used by ${pools.length} worker pool(s)` },
        { type: CONDITION.degraded, status: false, reason: REASON.asExpected, message: '' },
      ]
    : [
        { type: CONDITION.available, status: false, reason: check.reason, message: check.message },
        { type: CONDITION.degraded, status: true, reason: check.reason, message: check.message },
      ];
  const status: ScrapeEngineStatus = {
    observedGeneration: stored.metadata.generation,
    engine: check.ok ? check.engine.spec.engine : check.engineName,
    pools,
    conditions: nextConditions(stored.conditions, inputs, stored.metadata.generation, ctx.now()),
  };
  if (statusUpToDate(stored.status, status)) return;
  await ctx.cluster.patchEngineStatus(namespace, name, status);
  ctx.logger.info({ available: check.ok, pools: pools.length }, 'scrapeengine status updated');
}
