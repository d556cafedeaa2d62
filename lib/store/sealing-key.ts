import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { SecretBox } from '../secret-box.js';
import type { Queryable } from './db.js';

export const SECRET_KEY_FILE = 'dashboard-secret.key';
const STORE_KEY_NAME = 'sealing-key';

/**
 * The key that seals the store's secrets (the Default key, webhook secrets), the same in every
 * process of one store (docs/dashboard.md "Sealing key"):
 * 1. DASHBOARD_SECRET_KEY when set: kept outside the store, so a copy of the database opens nothing;
 * 2. else, for the embedded on-disk store, a key file created in DATA_DIR;
 * 3. else a key kept in the store itself (`store_secrets`), created once by whichever process comes
 *    first: every replica of one PostgreSQL agrees, at the cost that a copy of the database opens the
 *    sealed secrets (a warning says so).
 */
export async function openSealingBox(db: Queryable, config: Config, logger: Logger, onDisk: boolean): Promise<SecretBox> {
  if (config.DASHBOARD_SECRET_KEY) return new SecretBox(decodeKey(config.DASHBOARD_SECRET_KEY));
  if (onDisk) {
    const file = join(config.DATA_DIR, SECRET_KEY_FILE);
    if (!existsSync(file)) {
      mkdirSync(config.DATA_DIR, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    }
    return new SecretBox(decodeKey(readFileSync(file, 'utf8').trim()));
  }
  await db.query('INSERT INTO store_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [STORE_KEY_NAME, randomBytes(32).toString('hex')]);
  const stored = await db.query<{ value: string }>('SELECT value FROM store_secrets WHERE name = $1', [STORE_KEY_NAME]);
  if (config.DATABASE_URL) {
    logger.warn('DASHBOARD_SECRET_KEY is unset: the Default key and webhook secrets are sealed under a key kept in the database, so a copy of the database opens them; set DASHBOARD_SECRET_KEY (32 bytes, hex or base64) on every replica to keep them apart');
  }
  return new SecretBox(decodeKey(stored.rows[0].value));
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('DASHBOARD_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}
