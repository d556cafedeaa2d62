import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import { countFinishedScrape } from '../metrics.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import { isCacheable } from '../../lib/scrape/cache-policy.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { Principal } from '../auth/key-resolver.js';
import type { GatewayContext } from '../context.js';
import type { CreditHold } from '../admission/credit-hold.js';
import { holdPlan } from './plan-hold.js';
import type { PricedScrape } from './plan-and-price.js';
import { readCache, writeCache } from './cache.js';
import { newRecord, planScrape, runScrape, type ScrapeRecord } from './scrape-loop.js';

export type { ScrapeRecord } from './scrape-loop.js';

export interface ScrapeRequest {
  requestId: string;
  principal: Principal;
  params: ScrapeParams;
  /** Planned and priced at admission (scrape/admission.ts); null for a session, which pins the plan once looked up. */
  priced: PricedScrape | null;
  receivedAt: number;
  /** The scrape's one credit hold (admission/credit-hold.ts), which this scrape takes if admission could not, and settles. */
  hold: CreditHold;
}

export interface ScrapeSucceeded extends ScrapeRecord {
  result: ScrapeSuccess;
}

export class ScrapeFailed extends Error {
  constructor(
    readonly error: ServiceError,
    readonly record: ScrapeRecord,
  ) {
    super(error.message);
  }
}

/**
 * One scrape end to end: plan, read the cache, hold the dearest cost, run the scrape loop, settle.
 * Settlement is the last step that can fail (the cache write before it never throws), so the answer
 * always says what was charged: every failure path settles the hold at 0.
 */
export async function performScrape(context: GatewayContext, request: ScrapeRequest): Promise<ScrapeSucceeded> {
  const { params, principal, hold } = request;
  const record = newRecord(isCacheable(params) ? 'miss' : 'bypass');
  try {
    const planned = await planScrape(context, {
      requestId: request.requestId,
      projectId: principal.project.id,
      organizationId: principal.organization.id,
      entitledEngines: principal.organization.entitled_engines,
      params,
      receivedAt: request.receivedAt,
      climb: true,
    }, record, request.priced);
    if (record.cacheState === 'miss') {
      const hit = await readCache(context.db, principal.project.id, params);
      if (hit) {
        // Never held at admission for a cacheable request (scrape/admission.ts); were it, a hit spends nothing.
        await hold.release();
        countFinishedScrape(context.metrics, hit.engine, 'cache_hit');
        // What the stored page's warnings say of it (RENDER_DEGRADED) holds for every answer it serves.
        record.warnings.push(...hit.warnings.filter((warning) => !record.warnings.includes(warning)));
        return { ...record, engine: hit.engine, cacheState: 'hit', admissionMs: Date.now() - request.receivedAt, result: hit };
      }
    }
    const success = await runScrape(context, planned, record, (priced) => holdPlan(hold, priced));
    if (record.cacheState === 'miss') await cacheQuietly(context, principal.project.id, params, success);
    // The last step that can fail: after it nothing may turn this answer into an error.
    if (!(await hold.settle(record.chargedMicro, success.engine))) {
      throw new ServiceError('ERR::INTERNAL::ERROR', 'the credit hold of this scrape was lost; nothing was charged');
    }
    countFinishedScrape(context.metrics, success.engine, 'success', record.chargedMicro);
    return { ...record, result: success };
  } catch (error) {
    record.chargedMicro = 0;
    await hold.release();
    const serviceError = toServiceError(error, 'Scrape failed');
    countFinishedScrape(context.metrics, record.engine ?? serviceError.diagnostics?.engine ?? 'none', serviceError.code);
    throw new ScrapeFailed(withAttempts(serviceError, record), record);
  }
}

/** A cache write failure never fails the scrape that produced the page: logged and counted. */
async function cacheQuietly(context: GatewayContext, projectId: string, params: ScrapeParams, success: ScrapeSuccess): Promise<void> {
  try {
    await writeCache(context.db, projectId, params, success);
  } catch (error) {
    context.metrics.cacheWriteFailures.inc();
    context.logger.warn({ err: error }, 'scrape cache write failed; the scrape answers uncached');
  }
}

/** The problem body carries every attempt and every warning decided for the caller. */
function withAttempts(error: ServiceError, record: ScrapeRecord): ServiceError {
  const warnings = [...new Set([...(error.warnings ?? []), ...record.warnings])];
  return error.with({
    warnings: warnings.length > 0 ? warnings : undefined,
    diagnostics: record.attempts.length > 0 ? { ...error.diagnostics, attempts: record.attempts } : error.diagnostics,
  });
}
