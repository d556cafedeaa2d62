import type { Router, Request } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { isQueryKeyParameter } from '../../lib/apikeys.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import { allowancePeriod, isoDate } from '../../lib/store/allowance-period.js';
import { allowanceUsage } from '../../lib/billing/ledger.js';
import { holdTotals, requestLogTotals, usageSummary } from '../../lib/store/usage.js';
import { SummaryQuery, UsageQuery } from '../usage/usage-query.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { RouteTable } from './declare.js';

const MAX_SUMMARY_DAYS = 366;

/** GET /v1/usage, /v1/usage/summary, /v1/usage/reconciliation (scope `read`); bodies in docs/usage.md. */
export function usageRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  routes.declare('getUsage', async (req, res) => {
    const principal = principalOf(res);
    const query = parse(UsageQuery, req);
    const usage = await allowanceUsage(context.db, context.ledger, creditAccountOf(context, principal, query.environment), query.at ?? new Date());
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      organization_id: principal.organization.id,
      environment: query.environment,
      period: { start: usage.periodStart, end: usage.periodEnd },
      allowance_credits: Math.floor(usage.allowanceMicro / MICRO_PER_CREDIT),
      allowance_micro: usage.allowanceMicro,
      spent_credits: Math.floor(usage.spentMicro / MICRO_PER_CREDIT),
      spent_micro: usage.spentMicro,
      reserved_micro: usage.reservedMicro,
      remaining_micro: Math.max(0, usage.allowanceMicro - usage.spentMicro - usage.reservedMicro),
      limits: {
        rate_limit_per_second: principal.organization.rate_limit_per_second,
        concurrency_limit: principal.organization.concurrency_limit,
        live_sessions: 100,
      },
    });
  });

  routes.declare('getUsageSummary', async (req, res) => {
    const principal = principalOf(res);
    const query = parse(SummaryQuery, req);
    const period = allowancePeriod(principal.organization.created_at, new Date());
    const from = query.from ?? period.start;
    const to = query.to ?? period.end;
    if (to <= from) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'to: must be after from');
    if (to.getTime() - from.getTime() > MAX_SUMMARY_DAYS * 86_400_000) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `to: the window may span at most ${MAX_SUMMARY_DAYS} days`);
    }
    const rows = await usageSummary(context.db, {
      organizationId: principal.organization.id,
      environment: query.environment,
      from,
      to,
      groupBy: query.group_by,
    });
    const withCredits = rows.map((row) => ({ ...row, credits_charged: row.credits_charged_micro / MICRO_PER_CREDIT }));
    const total = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((sum, r) => sum + pick(r), 0);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      organization_id: principal.organization.id,
      environment: query.environment,
      from: from.toISOString(),
      to: to.toISOString(),
      group_by: query.group_by,
      rows: withCredits,
      totals: {
        requests: total((r) => r.requests),
        billed_requests: total((r) => r.billed_requests),
        credits_charged_micro: total((r) => r.credits_charged_micro),
        credits_charged: total((r) => r.credits_charged_micro) / MICRO_PER_CREDIT,
      },
    });
  });

  routes.declare('getUsageReconciliation', async (req, res) => {
    const principal = principalOf(res);
    const query = parse(UsageQuery, req);
    const at = query.at ?? new Date();
    const usage = await allowanceUsage(context.db, context.ledger, creditAccountOf(context, principal, query.environment), at);
    const period = allowancePeriod(principal.organization.created_at, at);
    const periodKey = { organizationId: principal.organization.id, periodStart: isoDate(period.start), environment: query.environment };
    const holds = await holdTotals(context.db, periodKey.organizationId, periodKey.environment, periodKey.periodStart, context.ledger.heldIn(periodKey));
    const retainedSince = new Date(Date.now() - context.config.REQUEST_LOG_RETENTION_HOURS * 3_600_000);
    const logSince = retainedSince > period.start ? retainedSince : period.start;
    await context.requestLog.flush();
    const log = await requestLogTotals(context.db, principal.organization.id, logSince, period.end);
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      organization_id: principal.organization.id,
      environment: query.environment,
      period: { start: usage.periodStart, end: usage.periodEnd },
      ledger: { spent_micro: usage.spentMicro, reserved_micro: usage.reservedMicro },
      holds,
      consistent: usage.spentMicro === holds.charged_micro && usage.reservedMicro === holds.open_micro,
      request_log: { since: logSince.toISOString(), records: log.records, credits_micro: log.credits_micro },
    });
  });
  return routes.router();
}

/** Query-string keys are ignored here as on every route but /v1/browser (docs/api-reference.md "Authentication" 2). */
function parse<T extends z.ZodType>(schema: T, req: Request): z.output<T> {
  const query = Object.fromEntries(Object.entries(req.query as Record<string, unknown>).filter(([name]) => !isQueryKeyParameter(name)));
  const result = schema.safeParse(query);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const name = issue.code === 'unrecognized_keys' ? issue.keys.join(', ') : issue.path.join('.');
  const detail = issue.code === 'unrecognized_keys' ? 'is not a parameter of this route' : issue.message;
  throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${name}: ${detail}`);
}
