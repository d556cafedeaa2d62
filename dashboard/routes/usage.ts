import { Router } from 'express';
import { z } from 'zod';
import { KEY_ENVIRONMENTS } from '../../lib/apikeys.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { allowanceUsage } from '../../lib/billing/ledger.js';
import { ledgerAllowanceMicro } from '../../lib/billing/allowance.js';
import { usageSummary } from '../../lib/store/usage.js';
import type { DashboardContext } from '../context.js';
import { membershipOf, parseInput } from '../org-access.js';

const Query = z.strictObject({ environment: z.enum(KEY_ENVIRONMENTS).default('live') });

/**
 * The allowance month and its charts, read by the functions behind /v1/usage and /v1/usage/summary
 * (lib/billing/ledger.ts allowanceUsage, lib/store/usage.ts usageSummary), so both show the same numbers.
 */
export function usageRoutes(context: DashboardContext): Router {
  const router = Router({ mergeParams: true });
  router.get('/usage', async (req, res) => {
    const { organization } = membershipOf(res);
    const { environment } = parseInput(Query, req.query);
    const usage = await allowanceUsage(context.db, context.ledger, {
      organizationId: organization.id,
      projectId: '',
      organizationCreatedAt: organization.created_at,
      monthlyCreditsMicro: ledgerAllowanceMicro(organization.monthly_credits_micro, environment, context.config.TEST_MONTHLY_CREDITS),
      environment,
    });
    const window = { organizationId: organization.id, environment, from: new Date(usage.periodStart), to: new Date(usage.periodEnd) };
    const [byDay, byEngine] = await Promise.all([
      usageSummary(context.db, { ...window, groupBy: ['day'] }),
      usageSummary(context.db, { ...window, groupBy: ['engine'] }),
    ]);
    const credits = (micro: number) => micro / MICRO_PER_CREDIT;
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      environment,
      period: { start: usage.periodStart, end: usage.periodEnd, resets_at: usage.periodEnd },
      allowance_micro: usage.allowanceMicro,
      spent_micro: usage.spentMicro,
      reserved_micro: usage.reservedMicro,
      remaining_micro: Math.max(0, usage.allowanceMicro - usage.spentMicro - usage.reservedMicro),
      allowance_credits: credits(usage.allowanceMicro),
      spent_credits: credits(usage.spentMicro),
      reserved_credits: credits(usage.reservedMicro),
      by_day: byDay.map((row) => ({ day: row.day, requests: row.requests, billed_requests: row.billed_requests, credits: credits(row.credits_charged_micro) })),
      by_engine: byEngine.map((row) => ({ engine: row.engine ?? 'none', requests: row.requests, billed_requests: row.billed_requests, credits: credits(row.credits_charged_micro) })),
    });
  });
  return router;
}
