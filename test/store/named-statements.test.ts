import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PgliteDb } from '../../lib/store/pglite-db.js';

/**
 * A named statement (prepared once, then run as EXECUTE with quoted literals on PGlite) answers
 * exactly as the same statement run the plain way, whatever text its parameters carry.
 */
describe('named statements on PGlite', () => {
  let db: PgliteDb;
  beforeAll(async () => {
    db = await PgliteDb.open(null);
    await db.exec(`CREATE TABLE t (id text PRIMARY KEY, n bigint, at timestamptz, flag boolean, note text)`);
  });
  afterAll(async () => {
    await db.close();
  });

  const INSERT = `INSERT INTO t (id, n, at, flag, note) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`;
  const SELECT = `SELECT id, n, at, flag, note FROM t WHERE id = $1`;
  const tricky = [`it's`, `back\\slash \\' and '' quotes`, `$1 ); DROP TABLE t; --`, `ünïcødé ☃`, `E'\\x41'`, ''];

  it('stores and reads back every text as the plain path does, and counts the rows it changed', async () => {
    const at = new Date('2026-11-23T10:11:12.345Z');
    for (const [index, note] of tricky.entries()) {
      const named = await db.query(INSERT, [`named-${index}`, 9_007_199_254_740_991, at, index % 2 === 0, note], { name: 'test_insert' });
      const plain = await db.query(INSERT, [`plain-${index}`, 9_007_199_254_740_991, at, index % 2 === 0, note]);
      expect(named.rowCount).toBe(1);
      expect(plain.rowCount).toBe(1);
      const again = await db.query(INSERT, [`named-${index}`, 1, at, true, note], { name: 'test_insert' });
      expect(again.rowCount).toBe(0);
      const readNamed = await db.query<{ id: string }>(SELECT, [`named-${index}`], { name: 'test_select' });
      const readPlain = await db.query<{ id: string }>(SELECT, [`plain-${index}`]);
      expect({ ...readNamed.rows[0], id: 'x' }).toEqual({ ...readPlain.rows[0], id: 'x' });
      expect(readNamed.rows[0]).toMatchObject({ note, n: 9_007_199_254_740_991, flag: index % 2 === 0, at });
    }
    expect((await db.query('SELECT count(*)::int AS n FROM t')).rows[0]).toEqual({ n: tricky.length * 2 });
  });

  it('carries NULL, and runs the plain way for parameters without a literal form (arrays)', async () => {
    await db.query(INSERT, ['nulls', null, null, null, null], { name: 'test_insert' });
    expect((await db.query(SELECT, ['nulls'], { name: 'test_select' })).rows[0]).toEqual({ id: 'nulls', n: null, at: null, flag: null, note: null });
    const listed = await db.query<{ id: string }>(`SELECT id FROM t WHERE id = ANY($1::text[]) ORDER BY id`, [['nulls', 'named-0']], { name: 'test_any' });
    expect(listed.rows.map((row) => row.id)).toEqual(['named-0', 'nulls']);
  });

  it('runs named statements inside a transaction, and one first prepared in a rolled-back transaction afterwards', async () => {
    const UPDATE = `UPDATE t SET note = $2 WHERE id = $1 RETURNING id, note`;
    await expect(
      db.transaction(async (tx) => {
        const updated = await tx.query(UPDATE, ['named-0', 'in a rolled-back transaction'], { name: 'test_tx_update' });
        expect(updated).toEqual({ rows: [{ id: 'named-0', note: 'in a rolled-back transaction' }], rowCount: 1 });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await db.query(SELECT, ['named-0'], { name: 'test_select' })).rows[0]).toMatchObject({ note: tricky[0] });
    const committed = await db.transaction(async (tx) => {
      const read = await tx.query(SELECT, ['named-1'], { name: 'test_select' });
      return { read: read.rows[0], updated: await tx.query(UPDATE, ['named-1', `committed's`], { name: 'test_tx_update' }) };
    });
    expect(committed.read).toMatchObject({ id: 'named-1', note: tricky[1] });
    expect(committed.updated).toEqual({ rows: [{ id: 'named-1', note: `committed's` }], rowCount: 1 });
    expect((await db.query(UPDATE, ['named-2', 'outside'], { name: 'test_tx_update' })).rowCount).toBe(1);
  });

  it('reports a failing statement as the plain path does, and runs it again once fixed', async () => {
    await expect(db.query(`SELECT id FROM missing_table WHERE id = $1`, ['a'], { name: 'test_missing' })).rejects.toMatchObject({ code: '42P01' });
    await db.exec('CREATE TABLE missing_table (id text)');
    expect((await db.query(`SELECT id FROM missing_table WHERE id = $1`, ['a'], { name: 'test_missing' })).rows).toEqual([]);
  });
});
