import { beforeAll, describe, expect, it } from 'vitest';
import { allowanceUsage } from '../../lib/billing/ledger.js';
import type { CreditAccount } from '../../lib/store/credits.js';
import { ledgerOf } from '../support/ledger.js';
import type { Db, Queryable } from '../../lib/store/db.js';
import { claimSlot } from '../../lib/store/shared-limits.js';
import { StoredLedger } from '../../lib/billing/stored-ledger.js';
import { distributedServicesAvailable } from '../support/services.js';
import { useTestStore } from '../support/test-store.js';
import { newAccount } from '../support/accounts.js';

const available = await distributedServicesAvailable();
const CREDIT = 1_000_000;

/** A view of `db` whose statements all wait for `open()`, recording their names; `failing` names throw once. */
function gatedStore(db: Db, failing: Set<string> = new Set()) {
  const statements: string[] = [];
  let open!: () => void;
  const gate = new Promise<void>((resolve) => (open = resolve));
  const store: Queryable = {
    async query(sql, params, options) {
      const name = options?.name ?? sql;
      statements.push(name);
      await gate;
      if (failing.delete(name)) throw new Error(`${name} failed`);
      return db.query(sql, params, options);
    },
    exec: (sql) => db.exec(sql),
  };
  return { store, statements, open };
}

describe.skipIf(!available)('settlements group-committed on PostgreSQL (lib/store/settlement-groups.ts)', () => {
  const store = useTestStore();
  let db: Db;
  beforeAll(() => {
    db = store();
  });

  async function holdsWithLeases(account: CreditAccount, count: number) {
    const holds = [];
    for (let i = 0; i < count; i += 1) {
      const holder = `${account.organizationId}-lease-${i}`;
      expect((await claimSlot(db, account.organizationId, 100, holder, 60_000)).slot).not.toBeNull();
      holds.push({ reservation: await ledgerOf(db).hold(account, CREDIT, `request-${i}`), holder });
    }
    return holds;
  }

  async function ledger(account: CreditAccount) {
    const rows = await db.query<{ charged: number; open: number }>(
      `SELECT coalesce(sum(charged_micro), 0)::bigint AS charged, count(*) FILTER (WHERE settled_at IS NULL)::int AS open FROM credit_reservations WHERE organization_id = $1`,
      [account.organizationId],
    );
    const leases = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM concurrency_slots WHERE organization_id = $1', [account.organizationId]);
    const usage = await allowanceUsage(db, ledgerOf(db), account);
    return { charged: Number(rows.rows[0].charged), open: rows.rows[0].open, leases: leases.rows[0].n, spent: usage.spentMicro, reserved: usage.reservedMicro };
  }

  it('writes the settlements queued behind a running one in one statement, each settled once and charged at most its hold', async () => {
    const account = await newAccount(db, 100 * CREDIT, { name: 'groups', concurrencyLimit: 100 });
    const holds = await holdsWithLeases(account, 6);
    const { store, statements, open } = gatedStore(db);
    const groups = new StoredLedger(store);
    const charges = [CREDIT, CREDIT / 2, 0, 2 * CREDIT, CREDIT, CREDIT / 4];
    const settled = holds.map(({ reservation, holder }, i) => groups.settle(reservation.id, charges[i], 'fetch', holder));
    // A second settlement of a hold queued in the same group: it waits for the next statement and finds the hold settled.
    const again = groups.settle(holds[1].reservation.id, CREDIT, 'fetch', null);
    // Barrier: every settlement is queued before the first statement may run.
    open();
    expect(await Promise.all(settled)).toEqual([true, true, true, true, true, true]);
    expect(await again).toBe(false);
    expect(statements).toEqual(['credits_settle_free_slot', 'credits_settle_group', 'credits_settle']);
    // 1 + 0.5 + 0 + 1 (capped at the hold) + 1 + 0.25 credits.
    const charged = 3.75 * CREDIT;
    expect(await ledger(account)).toEqual({ charged, open: 0, leases: 0, spent: charged, reserved: 0 });
    const rows = await db.query<{ id: string; charged_micro: number }>('SELECT id, charged_micro FROM credit_reservations WHERE organization_id = $1', [account.organizationId]);
    expect(new Map(rows.rows.map((row) => [row.id, row.charged_micro]))).toEqual(new Map(holds.map(({ reservation }, i) => [reservation.id, Math.min(charges[i], CREDIT)])));
  });

  it('frees in a group only the leases its settlements name', async () => {
    const account = await newAccount(db, 100 * CREDIT, { name: 'groups', concurrencyLimit: 100 });
    const holds = await holdsWithLeases(account, 4);
    const { store, statements, open } = gatedStore(db);
    const groups = new StoredLedger(store);
    const settled = holds.map(({ reservation, holder }, i) => groups.settle(reservation.id, CREDIT, 'fetch', i === 2 ? null : holder));
    open();
    expect(await Promise.all(settled)).toEqual([true, true, true, true]);
    expect(statements).toEqual(['credits_settle_free_slot', 'credits_settle_group']);
    const leases = await db.query<{ holder: string }>('SELECT holder FROM concurrency_slots WHERE organization_id = $1', [account.organizationId]);
    expect(leases.rows.map((row) => row.holder)).toEqual([holds[2].holder]);
  });

  it('writes a group whose statement failed one by one, nothing charged twice', async () => {
    const account = await newAccount(db, 100 * CREDIT, { name: 'groups', concurrencyLimit: 100 });
    const holds = await holdsWithLeases(account, 4);
    const { store, statements, open } = gatedStore(db, new Set(['credits_settle_group']));
    const groups = new StoredLedger(store);
    const settled = holds.map(({ reservation, holder }) => groups.settle(reservation.id, CREDIT, 'fetch', holder));
    open();
    expect(await Promise.all(settled)).toEqual([true, true, true, true]);
    expect(statements).toEqual(['credits_settle_free_slot', 'credits_settle_group', ...Array(3).fill('credits_settle_free_slot')]);
    expect(await ledger(account)).toEqual({ charged: 4 * CREDIT, open: 0, leases: 0, spent: 4 * CREDIT, reserved: 0 });
  });

  it('settles many concurrent scrapes through the store exactly (settleReservation on the pool)', async () => {
    const account = await newAccount(db, 1000 * CREDIT, { name: 'groups', concurrencyLimit: 100 });
    const holds = await holdsWithLeases(account, 40);
    const results = await Promise.all(holds.map(({ reservation, holder }, i) => ledgerOf(db).settle(reservation.id, (i % 3) * (CREDIT / 2), 'fetch', holder)));
    expect(results.every((r) => r)).toBe(true);
    const charged = holds.reduce((sum, _, i) => sum + Math.min((i % 3) * (CREDIT / 2), CREDIT), 0);
    expect(await ledger(account)).toEqual({ charged, open: 0, leases: 0, spent: charged, reserved: 0 });
    expect(await Promise.all(holds.map(({ reservation }) => ledgerOf(db).settle(reservation.id, CREDIT)))).toEqual(holds.map(() => false));
    expect((await ledger(account)).spent).toBe(charged);
  });
});
