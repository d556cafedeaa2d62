import type { KeyEnvironment } from '../../lib/apikeys.js';
import type { CreditAccount } from '../../lib/store/credits.js';
import type { Principal } from './key-resolver.js';

/** The ledger a principal holds and spends against: its key's environment unless another is named. */
export function creditAccountOf(principal: Principal, environment: KeyEnvironment = principal.key.environment): CreditAccount {
  return {
    organizationId: principal.organization.id,
    projectId: principal.project.id,
    organizationCreatedAt: principal.organization.created_at,
    monthlyCreditsMicro: principal.organization.monthly_credits_micro,
    environment,
  };
}
