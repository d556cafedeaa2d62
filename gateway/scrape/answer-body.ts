import type { ScrapeSuccess } from '../../lib/protocol/index.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import type { ScrapeRecord } from './scrape-loop.js';

/**
 * The body a scrape answers (and a batch item stores): the document, or the JSON envelope completed
 * with the fields only the gateway knows.
 */
export function answerBody(success: ScrapeSuccess, record: ScrapeRecord, requestId: string): { contentType: string; bytes: Buffer } {
  if (success.envelope) {
    const envelope = {
      ...success.envelope,
      request_id: requestId,
      engine: success.engine,
      credits_charged: record.chargedMicro / MICRO_PER_CREDIT,
      cache_state: record.cacheState,
      warnings: [...new Set([...stringList(success.envelope.warnings), ...record.warnings])],
      diagnostics: { attempts: record.attempts },
    };
    return { contentType: 'application/json; charset=utf-8', bytes: Buffer.from(JSON.stringify(envelope), 'utf8') };
  }
  const bytes = success.body_encoding === 'base64' ? Buffer.from(success.body, 'base64') : Buffer.from(success.body, 'utf8');
  return { contentType: success.content_type, bytes };
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
