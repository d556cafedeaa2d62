import type { Db, Queryable } from './db.js';

/** The item that asks for a host slot: the claim it runs under (`request_id` changes with every claim). */
export interface SlotHolder {
  jobId: string;
  seq: number;
  requestId: string;
}

/**
 * Takes one of `max` slots for requests to `host` in this crawl, or answers false when all are held
 * (docs/crawl.md "Per-host concurrency"). The host's row in `crawl_host_turns` is locked first, so
 * claims on one host queue whichever gateway makes them; slots of items that no longer run under the
 * claim that took them (a killed gateway's, an expired lease's) are deleted before counting.
 */
export async function claimHostSlot(db: Db, holder: SlotHolder, host: string, max: number): Promise<boolean> {
  return db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO crawl_host_turns AS t (job_id, host, next_at) VALUES ($1, $2, '-infinity')
       ON CONFLICT (job_id, host) DO UPDATE SET next_at = t.next_at`,
      [holder.jobId, host],
    );
    await tx.query(
      `DELETE FROM crawl_host_slots s WHERE s.job_id = $1 AND s.host = $2 AND NOT EXISTS (
         SELECT 1 FROM batch_items b WHERE b.job_id = s.job_id AND b.seq = s.seq AND b.status = 'running' AND b.request_id = s.request_id)`,
      [holder.jobId, host],
    );
    const held = await tx.query<{ n: string }>(`SELECT count(*) AS n FROM crawl_host_slots WHERE job_id = $1 AND host = $2 AND seq <> $3`, [holder.jobId, host, holder.seq]);
    if (Number(held.rows[0]?.n ?? 0) >= max) return false;
    await tx.query(
      `INSERT INTO crawl_host_slots (job_id, seq, host, request_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (job_id, seq) DO UPDATE SET host = EXCLUDED.host, request_id = EXCLUDED.request_id`,
      [holder.jobId, holder.seq, host, holder.requestId],
    );
    return true;
  });
}

export async function releaseHostSlot(db: Queryable, holder: SlotHolder): Promise<void> {
  await db.query(`DELETE FROM crawl_host_slots WHERE job_id = $1 AND seq = $2 AND request_id = $3`, [holder.jobId, holder.seq, holder.requestId]);
}

export interface StoredRobots {
  text: string | null;
  unreachable: boolean;
}

/**
 * robots.txt of one of the crawl's origins: the stored answer, or `claimed` when this caller is now
 * the one to fetch it (no row yet, or another gateway's claim lapsed after `claimMs`), or `pending`
 * while another gateway fetches it.
 */
export async function robotsOfOrigin(db: Queryable, jobId: string, origin: string, claimMs: number): Promise<StoredRobots | 'claimed' | 'pending'> {
  const claim = await db.query(
    `INSERT INTO crawl_robots AS r (job_id, origin, fetching_until) VALUES ($1, $2, clock_timestamp() + $3::bigint * interval '1 millisecond')
     ON CONFLICT (job_id, origin) DO UPDATE SET fetching_until = EXCLUDED.fetching_until
       WHERE NOT r.fetched AND r.fetching_until < clock_timestamp()
     RETURNING origin`,
    [jobId, origin, claimMs],
  );
  if (claim.rowCount > 0) return 'claimed';
  const row = await db.query<{ fetched: boolean; robots_txt: string | null; unreachable: boolean }>(
    `SELECT fetched, robots_txt, unreachable FROM crawl_robots WHERE job_id = $1 AND origin = $2`,
    [jobId, origin],
  );
  const stored = row.rows[0];
  return stored?.fetched ? { text: stored.robots_txt, unreachable: stored.unreachable } : 'pending';
}

/** Stores what was fetched; the first answer stored is the crawl's (a lapsed claim's late answer is dropped). */
export async function storeRobotsOfOrigin(db: Queryable, jobId: string, origin: string, robots: StoredRobots): Promise<StoredRobots> {
  const result = await db.query<{ robots_txt: string | null; unreachable: boolean }>(
    `INSERT INTO crawl_robots AS r (job_id, origin, fetched, robots_txt, unreachable) VALUES ($1, $2, true, $3, $4)
     ON CONFLICT (job_id, origin) DO UPDATE SET fetched = true, robots_txt = EXCLUDED.robots_txt, unreachable = EXCLUDED.unreachable, fetching_until = NULL
       WHERE NOT r.fetched
     RETURNING robots_txt, unreachable`,
    [jobId, origin, robots.text, robots.unreachable],
  );
  if (result.rows[0]) return { text: result.rows[0].robots_txt, unreachable: result.rows[0].unreachable };
  return (await fetchedRobotsOfOrigin(db, jobId, origin)) ?? robots;
}

export async function fetchedRobotsOfOrigin(db: Queryable, jobId: string, origin: string): Promise<StoredRobots | null> {
  const stored = await db.query<{ robots_txt: string | null; unreachable: boolean }>(
    `SELECT robots_txt, unreachable FROM crawl_robots WHERE job_id = $1 AND origin = $2 AND fetched`,
    [jobId, origin],
  );
  const row = stored.rows[0];
  return row ? { text: row.robots_txt, unreachable: row.unreachable } : null;
}
