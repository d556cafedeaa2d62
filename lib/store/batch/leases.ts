import { newId } from '../../ids.js';
import type { Queryable } from '../db.js';
import type { JobRow } from './jobs.js';

/** One item a dispatcher now owns until `lease_expires_at` (renewed while it runs). */
export interface ClaimedItem {
  job: JobRow;
  seq: number;
  url: string;
  /** As stored (secrets redacted); `sealedOverrides` holds them (lib/store/batch/sealed-params.ts). */
  overrides: Record<string, unknown>;
  sealedOverrides: string | null;
  attempts: number;
  reservationId: string | null;
  requestId: string;
  /** The job's organization's engine entitlements as of the claim. */
  entitledEngines: string[];
}

interface ClaimOptions {
  owner: string;
  leaseMs: number;
  capacity: number;
  releaseDelayMs: number;
}

const JOBS_PER_CLAIM = 20;

/**
 * Claims up to `capacity` queued items in one transaction. Job rows are locked FOR UPDATE SKIP LOCKED,
 * so two dispatchers never count one job's running items at the same time: `concurrency` holds across
 * gateways. Jobs go by priority (higher first), then age; items by seq. Under a credit budget an item
 * whose hold could pass it is skipped, or waits while running items may still come in cheaper.
 */
export async function claimItems(tx: Queryable, options: ClaimOptions): Promise<ClaimedItem[]> {
  // The organization's entitlements come with the job (one statement less per claim); only jobs are locked.
  const jobs = await tx.query<JobRow & { organization_entitled_engines: string[] | null }>(
    `SELECT j.*, o.entitled_engines AS organization_entitled_engines
       FROM batch_jobs j LEFT JOIN organizations o ON o.id = j.organization_id
      WHERE j.status IN ('queued', 'running') AND j.items_queued > 0
      ORDER BY j.priority DESC, j.submitted_at, j.id LIMIT ${JOBS_PER_CLAIM} FOR UPDATE OF j SKIP LOCKED`,
    [],
    { name: 'batch_claim_jobs' },
  );
  const claimed: ClaimedItem[] = [];
  for (const { organization_entitled_engines: entitledEngines, ...job } of jobs.rows) {
    const room = options.capacity - claimed.length;
    if (room <= 0) break;
    claimed.push(...(await claimFromJob(tx, job, entitledEngines ?? [], room, options)));
  }
  return claimed;
}

async function claimFromJob(tx: Queryable, job: JobRow, entitledEngines: string[], room: number, options: ClaimOptions): Promise<ClaimedItem[]> {
  // The totals on the job row, read as it was locked: current, since only this transaction moves them now.
  let running = Number(job.items_running);
  const charged = Number(job.items_charged_micro);
  let committed = charged + Number(job.items_running_hold_micro);
  const slots = Math.min(room, job.concurrency - running);
  if (slots <= 0) return [];
  const queued = await tx.query<{ seq: number; url: string; overrides: Record<string, unknown>; sealed_overrides: string | null; attempts: number; hold_micro: number; reservation_id: string | null }>(
    `SELECT seq, url, overrides, sealed_overrides, attempts, hold_micro, reservation_id FROM batch_items
      WHERE job_id = $1 AND status = 'queued' ORDER BY seq LIMIT $2`,
    [job.id, slots],
    { name: 'batch_claim_queued' },
  );
  const claimed: ClaimedItem[] = [];
  const skipped: number[] = [];
  const budget = job.credit_budget_micro === null ? null : Number(job.credit_budget_micro);
  for (const item of queued.rows) {
    const hold = Number(item.hold_micro);
    if (budget !== null && committed + hold > budget) {
      if (charged + hold <= budget && running > 0) break;
      skipped.push(Number(item.seq));
      continue;
    }
    committed += hold;
    running += 1;
    claimed.push({
      job,
      seq: Number(item.seq),
      url: item.url,
      overrides: item.overrides,
      sealedOverrides: item.sealed_overrides,
      attempts: item.attempts + 1,
      reservationId: item.reservation_id,
      requestId: newId(),
      entitledEngines,
    });
  }
  if (skipped.length > 0) {
    await tx.query(
      `UPDATE batch_items SET status = 'skipped', finished_at = now(), release_at = now() + ($3::bigint * interval '1 millisecond')
        WHERE job_id = $1 AND seq = ANY($2::bigint[])`,
      [job.id, skipped, options.releaseDelayMs],
    );
  }
  if (claimed.length > 0) {
    await tx.query(
      `UPDATE batch_items b SET status = 'running', attempts = b.attempts + 1, lease_owner = $2, request_id = v.request_id,
              lease_expires_at = now() + ($3::bigint * interval '1 millisecond'), started_at = now()
         FROM jsonb_to_recordset($4::jsonb) AS v(seq bigint, request_id text)
        WHERE b.job_id = $1 AND b.seq = ANY($5::bigint[]) AND b.seq = v.seq`,
      [job.id, options.owner, options.leaseMs, JSON.stringify(claimed.map((item) => ({ seq: item.seq, request_id: item.requestId }))), claimed.map((item) => item.seq)],
    );
  }
  if (claimed.length > 0 && job.status === 'queued') {
    await tx.query(`UPDATE batch_jobs SET status = 'running', started_at = COALESCE(started_at, now()) WHERE id = $1`, [job.id], { name: 'batch_job_started' });
  }
  return claimed;
}

/**
 * Keeps this dispatcher's leases alive while its items run. Rows a finishing transaction holds are
 * skipped, not waited for: it writes many items at once in its own order, and waiting could deadlock;
 * those items are being finished, and a rolled-back finish is renewed on the next pass.
 */
export async function renewLeases(db: Queryable, owner: string, leaseMs: number): Promise<void> {
  await db.query(
    `UPDATE batch_items SET lease_expires_at = now() + ($2::bigint * interval '1 millisecond')
      WHERE (job_id, seq) IN (SELECT job_id, seq FROM batch_items WHERE lease_owner = $1 AND status = 'running' FOR UPDATE SKIP LOCKED)`,
    [owner, leaseMs],
  );
}

export interface ExpiredLease {
  job_id: string;
  seq: number;
}

/** Items whose dispatcher stopped renewing (a crashed gateway); the lifecycle re-checks each under its locks. */
export async function expiredLeases(db: Queryable, limit: number): Promise<ExpiredLease[]> {
  const result = await db.query<ExpiredLease>(
    `SELECT job_id, seq FROM batch_items WHERE status = 'running' AND lease_expires_at < now() ORDER BY lease_expires_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** Holds of finished, unsuccessful items whose return time has come. */
export async function dueReleases(db: Queryable, limit: number): Promise<{ job_id: string; seq: number; reservation_id: string | null }[]> {
  const result = await db.query<{ job_id: string; seq: number; reservation_id: string | null }>(
    `SELECT job_id, seq, reservation_id FROM batch_items WHERE release_at <= now() ORDER BY release_at LIMIT $1`,
    [limit],
  );
  return result.rows.map((row) => ({ ...row, seq: Number(row.seq) }));
}

/** Active jobs that may have reached an end: nothing running, and cancelling or drained and closed. */
export async function jobsToFinalize(db: Queryable): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    `SELECT id FROM batch_jobs
      WHERE status IN ('queued', 'running', 'cancelling') AND items_running = 0
        AND (status = 'cancelling' OR (NOT open AND items_queued = 0))`,
  );
  return result.rows.map((row) => row.id);
}
