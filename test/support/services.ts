import { connect } from 'nats';
import pg from 'pg';
import { newId } from '../../lib/ids.js';

export const POSTGRES_ADMIN_URL = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

/**
 * Whether the real PostgreSQL and NATS are reachable. Under CI=true their absence is an error, so the
 * distributed suites fail instead of skipping.
 */
export async function distributedServicesAvailable(): Promise<boolean> {
  const problems: string[] = [];
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (error) {
    problems.push(`PostgreSQL at ${POSTGRES_ADMIN_URL}: ${(error as Error).message}`);
  } finally {
    await client.end().catch(() => undefined);
  }
  try {
    const nc = await connect({ servers: NATS_URL, timeout: 3000 });
    await nc.close();
  } catch (error) {
    problems.push(`NATS at ${NATS_URL}: ${(error as Error).message}`);
  }
  if (problems.length === 0) return true;
  if (process.env.CI === 'true') throw new Error(`distributed-mode services missing under CI:\n${problems.join('\n')}`);
  return false;
}

/** A fresh database for one suite; dropped by the returned function. */
export async function createTestDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `trawler_test_${newId().toLowerCase()}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
