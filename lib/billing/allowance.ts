import type { KeyEnvironment } from '../apikeys.js';
import { MICRO_PER_CREDIT } from './prices.js';

/**
 * The allowance of one ledger: the organization's own for live; for test, TEST_MONTHLY_CREDITS, the
 * same for every organization, so a test key never has a second live-sized allowance.
 */
export function ledgerAllowanceMicro(organizationMonthlyMicro: number, environment: KeyEnvironment, testMonthlyCredits: number): number {
  return environment === 'live' ? Number(organizationMonthlyMicro) : testMonthlyCredits * MICRO_PER_CREDIT;
}
