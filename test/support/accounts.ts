import { createApiKey, createOrganization, createProject, type Scope } from '../../lib/store/accounts.js';
import type { CreditAccount } from '../../lib/store/credits.js';
import type { Queryable } from '../../lib/store/db.js';

/** A live key of `projectId` with `scopes`. */
export async function keyFor(db: Queryable, projectId: string, scopes: Scope[], name = 'log'): Promise<string> {
  return (await createApiKey(db, { projectId, name, environment: 'live', scopes })).secret;
}

/** A new organization and project with `allowanceMicro` a month, as the ledger sees them (live); limits 1 unless given. */
export async function newAccount(
  db: Queryable,
  allowanceMicro: number,
  options: { name: string; concurrencyLimit?: number; rateLimitPerSecond?: number },
): Promise<CreditAccount> {
  const organization = await createOrganization(db, options.name, {
    monthlyCreditsMicro: allowanceMicro,
    rateLimitPerSecond: options.rateLimitPerSecond ?? 1,
    concurrencyLimit: options.concurrencyLimit ?? 1,
  });
  const project = await createProject(db, organization.id, options.name);
  return { organizationId: organization.id, projectId: project.id, organizationCreatedAt: organization.created_at, monthlyCreditsMicro: allowanceMicro, environment: 'live' };
}
