import { countUsers } from '../lib/store/dashboard/users.js';
import { storeDefaultKey } from '../lib/store/dashboard/keys.js';
import { createInvitation, unclaimedBootstrapOrganization } from '../lib/store/dashboard/members.js';
import type { DashboardContext } from './context.js';
import { invitationLink } from './routes/workspaces.js';

const SETUP_LINK_HOURS = 24;

/**
 * First start (no dashboard user yet): a one-time owner invitation to the bootstrap organization,
 * returned as a link to print. Each start without users makes a fresh link; each link works once.
 */
export async function setupLink(context: DashboardContext): Promise<string | null> {
  if ((await countUsers(context.db)) > 0) return null;
  const organizationId = await unclaimedBootstrapOrganization(context.db);
  if (!organizationId) return null;
  const { token } = await createInvitation(context.db, {
    organizationId,
    role: 'owner',
    email: null,
    createdBy: null,
    expiresAt: new Date(Date.now() + SETUP_LINK_HOURS * 3_600_000),
  });
  return invitationLink(context, token);
}

/** Keeps the Default key bootstrap just made revealable in the dashboard. */
export async function adoptDefaultKey(context: DashboardContext, organizationId: string, keyId: string, secret: string): Promise<void> {
  await storeDefaultKey(context.db, organizationId, keyId, context.box.seal(secret));
}
