import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createOrganization, createProject, revokeApiKey } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';

// Issue 27 item 7: `trawler keys revoke <prefix>` revoked every key sharing the 16-character prefix, across organizations.
const LIMITS = { monthlyCreditsMicro: 1, rateLimitPerSecond: 1, concurrencyLimit: 1 };
const SHARED = 'svc_live_aaaaaaa';
let db: Db;
let keys: Array<{ id: string; organizationId: string }>;
beforeAll(async () => {
  db = await openStore({ dataDir: null });
  keys = [];
  for (const [index, name] of ['one', 'two'].entries()) {
    const organization = await createOrganization(db, name, LIMITS);
    const project = await createProject(db, organization.id, 'p');
    const secret = `${SHARED}${String(index + 2).repeat(45)}`;
    const { key } = await createApiKey(db, { projectId: project.id, name, environment: 'live', scopes: ['read'], secret });
    keys.push({ id: key.id, organizationId: organization.id });
  }
});
afterAll(async () => db?.close());

async function revokedIds(): Promise<string[]> {
  return (await db.query<{ id: string }>('SELECT id FROM api_keys WHERE revoked_at IS NOT NULL ORDER BY id')).rows.map((row) => row.id);
}

describe('keys revoke by displayed prefix', () => {
  it('revokes nothing when the prefix names keys of several organizations, and names them', async () => {
    await expect(revokeApiKey(db, SHARED)).rejects.toThrow(new RegExp(`names 2 active keys: .*${keys[0].organizationId}.*--org|names 2 active keys: .*${keys[1].organizationId}.*--org`));
    expect(await revokedIds()).toEqual([]);
  });

  it('revokes the one key of the organization named with --org, or one key by id', async () => {
    expect(await revokeApiKey(db, SHARED, keys[1].organizationId)).toBe(1);
    expect(await revokedIds()).toEqual([keys[1].id]);
    expect(await revokeApiKey(db, SHARED)).toBe(1); // now one active key has it
    expect((await revokedIds()).sort()).toEqual(keys.map((k) => k.id).sort());
  });
});
