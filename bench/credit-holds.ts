/**
 * A scrape's credit hold and settlement on the embedded store (PGlite), both ways in one run: held in
 * the store (`takeStoredHold`, two statements: hold and settle, as before lib/billing/memory-ledger.ts)
 * and held in memory (`MemoryLedger.hold`, one group-committed settlement). CPU of this process and store
 * statements per hold + settle, at concurrency 1 and 8. BENCH_REQUESTS (default 2000). Prints figures;
 * not a test.
 */
import { createOrganization, createProject } from '../lib/store/accounts.js';
import { MemoryLedger } from '../lib/billing/memory-ledger.js';
import { takeStoredHold, type CreditAccount, type Hold } from '../lib/store/credits.js';
import type { Db } from '../lib/store/db.js';
import { openStore } from '../lib/store/open.js';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);

async function run(db: Db, account: CreditAccount, concurrency: number, hold: (db: Db, account: CreditAccount, amountMicro: number, requestId: string) => Promise<Hold>): Promise<{ cpuMs: number; statements: number }> {
  let statements = 0;
  const query = db.query.bind(db);
  db.query = ((...args: Parameters<Db['query']>) => {
    statements += 1;
    return query(...args);
  }) as Db['query'];
  let next = 0;
  const worker = async () => {
    while (next < REQUESTS) {
      next += 1;
      const reservation = await hold(db, account, 1_000_000, 'bench');
      await ledger.settle(reservation.id, 1_000_000, 'fetch');
    }
  };
  const start = process.cpuUsage();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  db.query = query;
  return { cpuMs: (used.user + used.system) / 1000 / REQUESTS, statements: statements / REQUESTS };
}

const db = await openStore({ dataDir: null });
const ledger = new MemoryLedger(db);
const reserveStoredCredits = takeStoredHold;
const reserveCredits = (_db: Db, held: CreditAccount, amountMicro: number, requestId: string) => ledger.hold(held, amountMicro, requestId);
const organization = await createOrganization(db, 'bench', { monthlyCreditsMicro: 1e15, rateLimitPerSecond: 1, concurrencyLimit: 1 });
const project = await createProject(db, organization.id, 'bench');
const account: CreditAccount = {
  organizationId: organization.id,
  projectId: project.id,
  organizationCreatedAt: organization.created_at,
  monthlyCreditsMicro: 1e15,
  environment: 'live',
};
// Warm-up: prepares the named statements of both paths.
await run(db, account, 8, reserveStoredCredits);
await run(db, account, 8, reserveCredits);
for (const concurrency of [1, 8]) {
  for (const [name, hold] of [['held in the store', reserveStoredCredits], ['held in memory', reserveCredits]] as const) {
    const figures = await run(db, account, concurrency, hold);
    console.log(`c=${concurrency} ${name.padEnd(18)} ${figures.cpuMs.toFixed(3)} ms CPU, ${figures.statements.toFixed(2)} statements per hold + settle`);
  }
}
await db.close();
