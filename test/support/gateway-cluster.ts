import pg from 'pg';
import { expect } from 'vitest';
import { DistributedPrograms, type Gateway } from './distributed-programs.js';
import { creditTotals } from './ledger.js';
import { until } from './poll.js';

type Json = Record<string, unknown>;
export type { Gateway };

/**
 * A fetch worker and gateway processes (DistributedPrograms) with the clients the batch and crawl
 * distributed suites share: one bootstrap key, every program killed and the database dropped at `close`.
 */
export interface GatewayCluster {
  db: pg.Client;
  /** The bootstrap key every gateway of the cluster accepts. */
  secret: string;
  /** A gateway process; it only counts as started once it sees the fetch worker on the bus. */
  startGateway(env?: Record<string, string>): Promise<Gateway>;
  getJson(gateway: Gateway, path: string): Promise<Json>;
  post(gateway: Gateway, path: string, body: Json): Promise<Response>;
  /** The live environment's credits spent and reserved, all organizations. */
  ledger(): Promise<{ spent: number; reserved: number }>;
  /** Items of a job running right now, with the pid of the gateway owning each. */
  runningItems(jobId: string): Promise<Array<{ seq: number; owner: string; pid: number }>>;
  close(): Promise<void>;
}

export async function startGatewayCluster(): Promise<GatewayCluster> {
  const programs = new DistributedPrograms({ SHUTDOWN_GRACE_MS: '5000' });
  await programs.open();
  const db = new pg.Client({ connectionString: programs.databaseUrl });
  await db.connect();
  const secret = programs.secret;
  const headers = { authorization: `Bearer ${secret}`, 'content-type': 'application/json' };
  await programs.startWorker('fetch');

  const getJson = async (gateway: Gateway, path: string): Promise<Json> => {
    const response = await fetch(`${gateway.url}${path}`, { headers });
    expect(response.status, path).toBe(200);
    return (await response.json()) as Json;
  };
  return {
    db,
    secret,
    getJson,
    post: (gateway, path, body) => fetch(`${gateway.url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) }),
    async startGateway(env = {}) {
      const gateway = await programs.startGateway({
        METRICS_PORT: '0',
        DEFAULT_RATE_LIMIT_PER_SECOND: '1000',
        // Short enough that a killed gateway's items come back soon, long enough that a loaded machine's
        // pauses never expire a live gateway's lease.
        BATCH_LEASE_MS: '10000',
        BATCH_DISPATCH_INTERVAL_MS: '100',
        BATCH_HOLD_RETURN_DELAY_MS: '0',
        ...env,
      });
      await until(() => getJson(gateway, '/v1/workers'), (body) => (body.workers as unknown[]).length === 1);
      return gateway;
    },
    async ledger() {
      return creditTotals(db);
    },
    async runningItems(jobId) {
      const rows = await db.query<{ seq: string; lease_owner: string }>(
        `SELECT seq, lease_owner FROM batch_items WHERE job_id = $1 AND status = 'running' ORDER BY seq`,
        [jobId],
      );
      // The owner is `host:pid:ulid`.
      return rows.rows.map((row) => ({ seq: Number(row.seq), owner: row.lease_owner, pid: Number(row.lease_owner.split(':').at(-2)) }));
    },
    async close() {
      await db.end();
      await programs.close();
    },
  };
}
