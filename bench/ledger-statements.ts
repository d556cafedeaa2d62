/**
 * PostgreSQL CPU per scrape of the ledger statements alone (issue 11, goal 1, distributed): the
 * statements a gateway sends for one fetch-tier scrape, at concurrency, against a fresh database on the
 * real server, in successive windows so that growth over a run shows. Variants (BENCH_VARIANTS):
 * - `scrape`: as the gateway does it, the admission (token, slot and hold in one statement,
 *   `takeTokenAndClaimSlot`) and the group-committed settlement that frees the slot; an admission
 *   that lost its slot race is counted, not retried;
 * - `hold`: the credit hold and its settlement only (no token, no slot);
 * - `reservation`: the hold's reservation row alone and its settlement (no month row): what a
 *   ledger of one row per scrape would cost at best;
 * - `floor`: the architecture floor's two statements (bench/floor/).
 * Also prints the server's autovacuum setting, which decides whether dead row versions are cleaned
 * meanwhile. BENCH_REQUESTS per window (default 3000), BENCH_WINDOWS (default 6), BENCH_CONCURRENCY
 * (default 8). Prints figures; not a test.
 */
import { randomUUID } from 'node:crypto';
import { createOrganization, createProject } from '../lib/store/accounts.js';
import { periodStartDate } from '../lib/store/allowance-period.js';
import { StoredLedger } from '../lib/billing/stored-ledger.js';
import { takeStoredHold as reserveStoredCredits } from '../lib/store/credits.js';
import type { Db } from '../lib/store/db.js';
import { newId } from '../lib/ids.js';
import { takeTokenAndClaimSlot } from '../lib/store/shared-limits.js';
import { autovacuumIsOff } from '../lib/store/maintenance.js';
import { openStore } from '../lib/store/open.js';
import { PgDb } from '../lib/store/pg-db.js';
import { POSTGRES_ADMIN_URL, createTestDatabase, distributedServicesAvailable } from '../test/support/services.js';
import { procCpuMicros } from './proc-cpu.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);
const WINDOWS = Number(process.env.BENCH_WINDOWS ?? 6);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const VARIANTS = (process.env.BENCH_VARIANTS ?? 'scrape,hold,reservation,floor').split(',');
const ALLOWANCE = 1e15;
const PRICE = 1_000_000;
const ASYNC_COMMIT = `(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit`;

interface Account {
  organizationId: string;
  projectId: string;
  organizationCreatedAt: Date;
  periodStart: string;
  keyId: string;
}

/** One scrape's statements; false when the admission lost its slot race (nothing held). */
type Scrape = (db: Db, account: Account) => Promise<boolean>;

/** The dispatch between admission and settlement, about a millisecond for a local page. */
const dispatch = () => new Promise((resolve) => setTimeout(resolve, 1));

const ledgers = new WeakMap<Db, StoredLedger>();

function settle(db: Db, holdId: string, leaseHolder: string | null): Promise<boolean> {
  let ledger = ledgers.get(db);
  if (!ledger) ledgers.set(db, (ledger = new StoredLedger(db)));
  return ledger.settle(holdId, PRICE, 'fetch', leaseHolder);
}

const SCRAPES: Record<string, Scrape> = {
  async scrape(db, account) {
    const holder = randomUUID();
    const id = newId();
    const admission = await takeTokenAndClaimSlot(
      db,
      { keyId: account.keyId, rate: 1e6, capacity: 2e6, nowMs: null },
      { organizationId: account.organizationId, limit: 10_000, holder, leaseMs: 30_000 },
      { id, projectId: account.projectId, periodStart: account.periodStart, environment: 'live', amountMicro: PRICE, allowanceMicro: ALLOWANCE, requestId: id },
    );
    if (!admission.held) return false;
    await dispatch();
    return settle(db, id, holder);
  },
  async hold(db, account) {
    const { id } = await reserveStoredCredits(db, { ...account, monthlyCreditsMicro: ALLOWANCE, environment: 'live' }, PRICE);
    await dispatch();
    return settle(db, id, null);
  },
  async reservation(db, account) {
    const id = newId();
    await db.query(
      `WITH reserved AS (
         INSERT INTO credit_reservations (id, organization_id, project_id, period_start, environment, amount_micro, request_id, expires_at)
         VALUES ($1, $2, $3, $4, 'live', ${PRICE}, $1, now() + interval '10 minutes') RETURNING id)
       SELECT 1 FROM reserved, ${ASYNC_COMMIT}`,
      [id, account.organizationId, account.projectId, account.periodStart],
      { name: 'bench_reservation' },
    );
    await dispatch();
    return settle(db, id, null);
  },
  async floor(db) {
    const id = newId();
    await db.query(`WITH held AS (INSERT INTO floor_holds (id, amount) VALUES ($1, 1000) RETURNING id) SELECT 1 FROM held, ${ASYNC_COMMIT}`, [id], { name: 'bench_floor_hold' });
    await dispatch();
    await db.query('UPDATE floor_holds SET charged = 1000 WHERE id = $1', [id], { name: 'bench_floor_settle' });
    return true;
  },
};

async function backendsCpuMicros(db: Db): Promise<number> {
  const pids = await db.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
  return pids.rows.reduce((total, { pid }) => total + (procCpuMicros(`/proc/${pid}/stat`) ?? 0), 0);
}

async function run(db: Db, account: Account, scrape: Scrape, requests: number): Promise<number> {
  let next = 0;
  let lost = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        next += 1;
        if (!(await scrape(db, account))) lost += 1;
      }
    }),
  );
  return lost;
}

async function measure(variant: string): Promise<void> {
  const database = await createTestDatabase();
  const db = await openStore({ databaseUrl: database.url, dataDir: null });
  try {
    const organization = await createOrganization(db, 'bench', { monthlyCreditsMicro: ALLOWANCE, rateLimitPerSecond: 1e6, concurrencyLimit: 10_000 });
    const project = await createProject(db, organization.id, 'bench');
    const account = {
      organizationId: organization.id,
      projectId: project.id,
      organizationCreatedAt: organization.created_at,
      periodStart: periodStartDate(organization.created_at, Date.now()),
      keyId: newId(),
    };
    await db.query(`INSERT INTO credit_periods (organization_id, period_start, environment) VALUES ($1, $2, 'live')`, [account.organizationId, account.periodStart]);
    await db.query('CREATE TABLE floor_holds (id text PRIMARY KEY, amount bigint NOT NULL, charged bigint)');
    const scrape = SCRAPES[variant];
    await run(db, account, scrape, 1000); // warm-up: the pool's connections open and its statements are prepared
    const windows: string[] = [];
    for (let window = 0; window < WINDOWS; window += 1) {
      const cpuBefore = await backendsCpuMicros(db);
      const start = performance.now();
      const lost = await run(db, account, scrape, REQUESTS);
      const wall = performance.now() - start;
      const cpu = (await backendsCpuMicros(db)) - cpuBefore;
      const lostNote = lost > 0 ? `, ${((100 * lost) / REQUESTS).toFixed(1)}% lost slot races` : '';
      windows.push(`${(cpu / REQUESTS / 1000).toFixed(3)} ms (${((REQUESTS / wall) * 1000).toFixed(0)}/s${lostNote})`);
    }
    console.log(`  ${variant.padEnd(12)} ${windows.join('  ->  ')}`);
  } finally {
    await db.close();
    await database.drop();
  }
}

async function main(): Promise<void> {
  if (!(await distributedServicesAvailable())) {
    console.log('ledger statements: skipped, PostgreSQL not reachable');
    return;
  }
  const server = new PgDb(POSTGRES_ADMIN_URL, { size: 1, timeoutMs: 5000 });
  const off = await autovacuumIsOff(server);
  await server.close();
  console.log(
    `PostgreSQL CPU per scrape of the ledger statements, c=${CONCURRENCY}, ${WINDOWS} windows of ${REQUESTS} scrapes on a fresh database (server autovacuum ${off ? 'off' : 'on'})`,
  );
  for (const variant of VARIANTS) await measure(variant);
}

await main();
