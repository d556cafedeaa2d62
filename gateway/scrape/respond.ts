import type { Response } from 'express';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { answerBody } from './answer-body.js';
import type { ScrapeSucceeded } from './scrape-service.js';

/** Sets the status and success headers of a scrape's answer and returns its body, which the route sends (answer-body.ts). */
export function prepareScrapeAnswer(res: Response, outcome: ScrapeSucceeded, params: ScrapeParams): Buffer {
  const { result } = outcome;
  res.setHeader('X-Credits-Charged', String(outcome.chargedMicro / MICRO_PER_CREDIT));
  res.setHeader('X-Target-Status', String(result.target_status));
  res.setHeader('X-Engine', result.engine);
  res.setHeader('Cache-State', outcome.cacheState);
  if (outcome.warnings.length > 0) res.setHeader('X-Warning', outcome.warnings);
  res.status(params.original_status ? result.target_status : 200);
  const body = answerBody(result, outcome, res.locals.requestId);
  res.setHeader('Content-Type', body.contentType);
  return body.bytes;
}
