import { ServiceError, toServiceError } from '../../lib/errors/index.js';
import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import type { ParseOptions, ProjectDefaults } from '../../lib/scrape/params.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import type { ClaimedItem } from '../../lib/store/batch/leases.js';
import { openParams, overridesBinding, paramsBinding } from '../../lib/store/batch/sealed-params.js';
import type { GatewayContext } from '../context.js';
import { answerBody } from '../scrape/answer-body.js';
import { scrapeLogEntry } from '../scrape/log-entry.js';
import { newRecord, planScrape, runScrape, type PlannedScrape } from '../scrape/scrape-loop.js';
import { crawlPageOf, discoverLinks } from '../crawl/discovery.js';
import { awaitHostTurn } from '../crawl/host-pacing.js';
import { itemParams, parseJobParams } from './item-params.js';
import type { ItemOutcome } from './lifecycle.js';

/** The items of one claim share their job row, so they share one parse of its parameters. */
const parsedJobParams = new WeakMap<ClaimedItem['job'], ScrapeParams>();

function sharedJobParams(context: GatewayContext, job: ClaimedItem['job'], options: ParseOptions): ScrapeParams {
  let params = parsedJobParams.get(job);
  if (!params) parsedJobParams.set(job, (params = parseJobParams(openJobParams(context, job), options)));
  return params;
}

/** The job's parameters with their sealed secrets put back (docs/batch.md "Secrets in params"). */
function openJobParams(context: GatewayContext, job: ClaimedItem['job']): Record<string, unknown> {
  return openParams(context.box, job.params, job.sealed_params, paramsBinding(job.organization_id, job.id));
}

/**
 * Runs one leased item through the scrape loop (gateway/scrape/scrape-loop.ts): the job defaults plus
 * the item's overrides, no camoufox climb (bot-challenge rule 7), the job's session when it has one,
 * and a request log entry under the item's request id. The hold was taken at submission; the
 * lifecycle settles it. Never throws: every failure becomes an outcome.
 */
export async function runItem(context: GatewayContext, item: ClaimedItem): Promise<ItemOutcome> {
  const receivedAt = Date.now();
  const record = newRecord('bypass');
  let params: ScrapeParams | null = null;
  let success: ScrapeSuccess | null = null;
  let failure: ServiceError | null = null;
  // A crawl's page: its depth is read with the other items of its claim while it is fetched.
  const crawlPage = crawlPageOf(context, item);
  try {
    const options: ParseOptions = { projectDefaults: item.job.project_defaults as ProjectDefaults, egressPolicy: context.egressPolicy };
    const overrides = openParams(context.box, item.overrides, item.sealedOverrides, overridesBinding(item.job.organization_id, item.job.id));
    const jobParams = Object.keys(overrides).length > 0 ? openJobParams(context, item.job) : item.job.params;
    params = itemParams({ jobParams, overrides, url: item.url }, options, () => sharedJobParams(context, item.job, options));
    // A crawl's page waits for a slot on its host and its host's turn (per-host concurrency and delay, robots.txt Crawl-delay).
    const hostTurn = await awaitHostTurn(context, item);
    let scraped: ScrapeSuccess;
    let planned: PlannedScrape;
    try {
      planned = await planScrape(context, {
        requestId: item.requestId,
        projectId: item.job.project_id,
        organizationId: item.job.organization_id,
        entitledEngines: item.entitledEngines,
        params,
        receivedAt,
        climb: false,
      }, record);
      scraped = await runScrape(context, planned, record);
    } finally {
      await hostTurn.release();
    }
    // A crawl's page queues its links before its result is written (a failure here fails or retries the item).
    // Its links are held at the price the shared admission step gives the job's parameters now (scrape/plan-and-price.ts).
    await discoverLinks(context, item, scraped, crawlPage, planned.priced.holdMicro);
    success = scraped;
  } catch (error) {
    failure = toServiceError(error);
    record.chargedMicro = 0;
  }
  const durationMs = Date.now() - receivedAt;
  const body = success ? answerBody(success, record, item.requestId) : null;
  const entry = scrapeLogEntry({
    requestId: item.requestId,
    receivedAt,
    projectId: item.job.project_id,
    params,
    rawUrl: item.url,
    record,
    success: success ? { ...record, result: success } : null,
    error: failure,
    bytesIn: 0,
    bytesOut: body?.bytes.length ?? 0,
    clientGone: false,
  });
  // Stored with the item's result, in its finishing transaction (gateway/batch/result-writer.ts).
  const log = { entry, organizationId: item.job.organization_id };
  if (success && body) {
    return {
      kind: 'succeeded', httpStatus: success.target_status, chargedMicro: record.chargedMicro, engine: success.engine,
      bytes: body.bytes.length, durationMs, error: null, contentType: body.contentType, body: body.bytes, log,
    };
  }
  const error = failure ?? new ServiceError('ERR::INTERNAL::ERROR', 'batch item produced no result');
  const retry = error.retryable && item.attempts < item.job.max_attempts;
  return {
    kind: retry ? 'retry' : 'failed', httpStatus: error.targetStatus, chargedMicro: 0, engine: record.engine, bytes: 0, durationMs,
    error: { code: error.code, retryable: error.retryable, detail: error.detail ?? null }, contentType: null, body: null, log,
  };
}
