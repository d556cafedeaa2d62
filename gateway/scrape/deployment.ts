import { ENGINE_NAMES, type EngineName } from '../../lib/protocol/index.js';
import type { Deployment } from '../../lib/scrape/engine-selection.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';

/** What this deployment can serve right now for an organization with this plan: live pools, the managed proxy pool if any, the model when one is configured. */
export function deploymentOf(context: GatewayContext, entitledEngines: readonly string[]): Deployment {
  const entitled = new Set(entitledEngines.filter((e): e is EngineName => (ENGINE_NAMES as readonly string[]).includes(e)));
  return {
    deployed: context.directory.deployedEngines(),
    entitled,
    managedProxyPool: context.exitPool !== null,
    aiModel: context.ai !== null,
  };
}

export function deploymentFor(context: GatewayContext, principal: Principal): Deployment {
  return deploymentOf(context, principal.organization.entitled_engines);
}
