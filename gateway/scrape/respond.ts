import type { Response } from 'express';
import { MICRO_PER_CREDIT } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { ScrapeSucceeded } from './scrape-service.js';

export type CacheState = 'hit' | 'miss' | 'bypass';

/** Writes a successful scrape: the document or the JSON envelope, with SPEC.md's success headers. */
export function sendScrapeSuccess(
  res: Response,
  outcome: ScrapeSucceeded,
  params: ScrapeParams,
  cacheState: CacheState,
): void {
  const { result } = outcome;
  res.setHeader('X-Credits-Charged', String(outcome.chargedMicro / MICRO_PER_CREDIT));
  res.setHeader('X-Target-Status', String(result.target_status));
  res.setHeader('X-Engine', result.engine);
  res.setHeader('Cache-State', cacheState);
  if (outcome.warnings.length > 0) res.setHeader('X-Warning', outcome.warnings);
  const status = params.original_status ? result.target_status : 200;
  res.status(status);
  if (result.envelope) {
    const envelope = {
      ...result.envelope,
      request_id: res.locals.requestId as string,
      warnings: outcome.warnings,
      diagnostics: { attempts: outcome.attempts },
    };
    res.type('application/json').send(JSON.stringify(envelope));
    return;
  }
  const body = result.body_encoding === 'base64' ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
  res.setHeader('Content-Type', result.content_type);
  res.send(body);
}
