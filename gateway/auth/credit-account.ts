import type { KeyEnvironment } from '../../lib/apikeys.js';
import type { Config } from '../../lib/config.js';
import { ledgerAllowanceMicro } from '../../lib/billing/allowance.js';
import type { CreditAccount } from '../../lib/store/credits.js';
import type { Principal } from './key-resolver.js';

/**
 * The ledger a principal holds and spends against: its key's environment unless another is named (a
 * batch job's holds name the job's). Each ledger has its own allowance (ledgerAllowanceMicro).
 */
export function creditAccountOf(
  context: { config: Pick<Config, 'TEST_MONTHLY_CREDITS'> },
  principal: Principal,
  environment: KeyEnvironment = principal.key.environment,
): CreditAccount {
  return {
    organizationId: principal.organization.id,
    projectId: principal.project.id,
    organizationCreatedAt: principal.organization.created_at,
    monthlyCreditsMicro: ledgerAllowanceMicro(principal.organization.monthly_credits_micro, environment, context.config.TEST_MONTHLY_CREDITS),
    environment,
  };
}
