import { SCOPES, createApiKey, createOrganization, createProject, type Organization } from '../lib/store/accounts.js';
import type { Queryable } from '../lib/store/db.js';
import { storeDefaultKey } from '../lib/store/dashboard/keys.js';
import { addMember } from '../lib/store/dashboard/members.js';
import { MICRO_PER_CREDIT } from '../lib/billing/prices.js';
import type { DashboardContext } from './context.js';

/** The live key named Default with all five scopes (docs/dashboard.md), its secret kept sealed. */
export async function createDefaultKey(context: DashboardContext, tx: Queryable, organizationId: string, projectId: string) {
  const created = await createApiKey(tx, { projectId, name: 'Default', environment: 'live', scopes: [...SCOPES] });
  await storeDefaultKey(tx, context.box, organizationId, created.key.id, created.secret);
  return created.key;
}

/** A new workspace: the organization, its first project and its Default key; the creator is owner. */
export async function createWorkspace(context: DashboardContext, userId: string, name: string): Promise<Organization> {
  const { config } = context;
  return context.db.transaction(async (tx) => {
    const organization = await createOrganization(tx, name, {
      monthlyCreditsMicro: config.DEFAULT_MONTHLY_CREDITS * MICRO_PER_CREDIT,
      rateLimitPerSecond: config.DEFAULT_RATE_LIMIT_PER_SECOND,
      concurrencyLimit: config.DEFAULT_CONCURRENCY_LIMIT,
    });
    const project = await createProject(tx, organization.id, 'Default project');
    await createDefaultKey(context, tx, organization.id, project.id);
    await addMember(tx, organization.id, userId, 'owner');
    return organization;
  });
}
