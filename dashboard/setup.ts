import { countUsers } from '../lib/store/dashboard/users.js';
import { storeDefaultKey } from '../lib/store/dashboard/keys.js';
import { replaceSetupInvitation, unclaimedBootstrapOrganization } from '../lib/store/dashboard/members.js';
import type { DashboardContext } from './context.js';
import { invitationLink } from './routes/workspaces.js';

const SETUP_LINK_HOURS = 24;

/**
 * First start (no dashboard user yet): a one-time owner invitation to the bootstrap organization,
 * returned as a link to print. Each start without users makes a fresh link that replaces the ones
 * printed before (by this process or another replica), so one works at a time; none once the
 * organization has a member.
 */
export async function setupLink(context: DashboardContext): Promise<string | null> {
  if ((await countUsers(context.db)) > 0) return null;
  const organizationId = await unclaimedBootstrapOrganization(context.db);
  if (!organizationId) return null;
  const token = await replaceSetupInvitation(context.db, organizationId, new Date(Date.now() + SETUP_LINK_HOURS * 3_600_000));
  return token === null ? null : invitationLink(context, token);
}

/** Keeps the Default key bootstrap just made revealable in the dashboard. */
export async function adoptDefaultKey(context: DashboardContext, organizationId: string, keyId: string, secret: string): Promise<void> {
  await storeDefaultKey(context.db, context.box, organizationId, keyId, secret);
}
