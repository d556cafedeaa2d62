import type { Response } from 'express';
import { MICRO_PER_CREDIT } from '../../lib/scrape/prices.js';
import type { ScrapeParams } from '../../lib/scrape/types.js';
import type { ScrapeSucceeded } from './scrape-service.js';

/**
 * Sets status and the success headers (the API reference, `scrapeGet`) for a scrape and returns the body to send: the document,
 * or the JSON envelope completed with the fields only the gateway knows.
 */
export function sendScrapeSuccess(res: Response, outcome: ScrapeSucceeded, params: ScrapeParams): Buffer {
  const { result } = outcome;
  res.setHeader('X-Credits-Charged', String(outcome.chargedMicro / MICRO_PER_CREDIT));
  res.setHeader('X-Target-Status', String(result.target_status));
  res.setHeader('X-Engine', result.engine);
  res.setHeader('Cache-State', outcome.cacheState);
  if (outcome.warnings.length > 0) res.setHeader('X-Warning', outcome.warnings);
  res.status(params.original_status ? result.target_status : 200);
  if (result.envelope) {
    const envelope = {
      ...result.envelope,
      request_id: res.locals.requestId,
      engine: result.engine,
      credits_charged: outcome.chargedMicro / MICRO_PER_CREDIT,
      cache_state: outcome.cacheState,
      warnings: [...new Set([...stringList(result.envelope.warnings), ...outcome.warnings])],
      diagnostics: { attempts: outcome.attempts },
    };
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    return Buffer.from(JSON.stringify(envelope), 'utf8');
  }
  res.setHeader('Content-Type', result.content_type);
  return result.body_encoding === 'base64' ? Buffer.from(result.body, 'base64') : Buffer.from(result.body, 'utf8');
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
