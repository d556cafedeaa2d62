import { ServiceError } from '../../errors/index.js';
import { isCredentialHeader, redactParams } from '../../scrape/redact.js';
import type { SecretBox } from '../../secret-box.js';
import type { Queryable } from '../db.js';

/**
 * A batch job's parameters and its items' overrides are stored as they are shown (lib/scrape/redact.ts:
 * proxy password and credential-bearing header values replaced by `[redacted]`), and the values those
 * hide are stored apart, sealed (lib/secret-box.ts) and bound to the job's organization and id: a
 * sealed value copied into another job does not open there. They are opened only to run an item
 * (gateway/batch/run-item.ts) or to validate appended items against the job (docs/batch.md "Secrets in params").
 * Stored form of the sealed column: null = written before sealing (start-up pass below), '' = no secret.
 */
interface Secrets {
  proxy?: string;
  custom_headers?: Record<string, unknown>;
}

export const NO_SECRETS = '';

export function paramsBinding(organizationId: string, jobId: string): string {
  return `batch-params:${organizationId}:${jobId}`;
}

export function overridesBinding(organizationId: string, jobId: string): string {
  return `batch-overrides:${organizationId}:${jobId}`;
}

function secretsOf(params: Record<string, unknown>): Secrets | null {
  const secrets: Secrets = {};
  const shown = redactParams(params);
  if (typeof params.proxy === 'string' && shown.proxy !== params.proxy) secrets.proxy = params.proxy;
  const headers = params.custom_headers;
  if (headers !== null && typeof headers === 'object' && !Array.isArray(headers)) {
    const hidden = Object.entries(headers).filter(([name]) => isCredentialHeader(name));
    if (hidden.length > 0) secrets.custom_headers = Object.fromEntries(hidden);
  }
  return Object.keys(secrets).length > 0 ? secrets : null;
}

/** What to store: the parameters as shown, and their secrets sealed under `binding` (NO_SECRETS when none). */
export function sealParams(box: SecretBox, params: Record<string, unknown>, binding: string): { shown: Record<string, unknown>; sealed: string } {
  const secrets = secretsOf(params);
  if (secrets === null) return { shown: params, sealed: NO_SECRETS };
  return { shown: redactParams(params), sealed: box.seal(JSON.stringify(secrets), binding) };
}

/** The parameters a job runs with: the stored ones with their sealed values put back. */
export function openParams(box: SecretBox, shown: Record<string, unknown>, sealed: string | null, binding: string): Record<string, unknown> {
  if (sealed === null || sealed === NO_SECRETS) return shown;
  const plain = box.open(sealed, binding);
  if (plain === null) {
    throw new ServiceError('ERR::INTERNAL::ERROR', 'the sealed proxy or header values of this batch job do not open with this deployment\'s sealing key');
  }
  const secrets = JSON.parse(plain) as Secrets;
  const out = { ...shown };
  if (secrets.proxy !== undefined) out.proxy = secrets.proxy;
  if (secrets.custom_headers !== undefined) out.custom_headers = { ...(shown.custom_headers as Record<string, unknown>), ...secrets.custom_headers };
  return out;
}

const SECRET_KEYS = `(params ? 'proxy' OR params ? 'custom_headers')`;

/**
 * Start-up pass: jobs and items written before sealing (sealed column null) get their secrets sealed
 * and their stored parameters redacted. Each row is updated only while still unsealed, so replicas
 * starting at once do not seal twice.
 */
export async function sealClearBatchParams(db: Queryable, box: SecretBox): Promise<{ jobs: number; items: number }> {
  const jobs = await db.query<{ id: string; organization_id: string; params: Record<string, unknown> }>(
    `SELECT id, organization_id, params FROM batch_jobs WHERE sealed_params IS NULL AND ${SECRET_KEYS}`,
  );
  let sealedJobs = 0;
  for (const job of jobs.rows) {
    const { shown, sealed } = sealParams(box, job.params, paramsBinding(job.organization_id, job.id));
    const updated = await db.query('UPDATE batch_jobs SET params = $2::jsonb, sealed_params = $3 WHERE id = $1 AND sealed_params IS NULL', [
      job.id, JSON.stringify(shown), sealed,
    ]);
    if (sealed !== NO_SECRETS) sealedJobs += updated.rowCount;
  }
  const items = await db.query<{ job_id: string; seq: number; organization_id: string; overrides: Record<string, unknown> }>(
    `SELECT i.job_id, i.seq, j.organization_id, i.overrides FROM batch_items i JOIN batch_jobs j ON j.id = i.job_id
      WHERE i.sealed_overrides IS NULL AND ${SECRET_KEYS.replaceAll('params', 'i.overrides')}`,
  );
  let sealedItems = 0;
  for (const item of items.rows) {
    const { shown, sealed } = sealParams(box, item.overrides, overridesBinding(item.organization_id, item.job_id));
    const updated = await db.query('UPDATE batch_items SET overrides = $3::jsonb, sealed_overrides = $4 WHERE job_id = $1 AND seq = $2 AND sealed_overrides IS NULL', [
      item.job_id, item.seq, JSON.stringify(shown), sealed,
    ]);
    if (sealed !== NO_SECRETS) sealedItems += updated.rowCount;
  }
  return { jobs: sealedJobs, items: sealedItems };
}
