import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/log.js';
import { SecretBox } from '../lib/secret-box.js';

export const SECRET_KEY_FILE = 'dashboard-secret.key';

/**
 * The key that seals the Default key's secret: DASHBOARD_SECRET_KEY when set (required for several
 * replicas on one PostgreSQL); else, for the embedded on-disk store, a key file created in DATA_DIR;
 * else a key for this process only (Default must then be rotated after a restart to be revealed).
 */
export function dashboardSecretBox(config: Config, logger: Logger, onDisk: boolean): SecretBox {
  if (config.DASHBOARD_SECRET_KEY) return new SecretBox(decodeKey(config.DASHBOARD_SECRET_KEY));
  if (onDisk) {
    const file = join(config.DATA_DIR, SECRET_KEY_FILE);
    if (!existsSync(file)) {
      mkdirSync(config.DATA_DIR, { recursive: true });
      writeFileSync(file, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
    }
    return new SecretBox(decodeKey(readFileSync(file, 'utf8').trim()));
  }
  logger.warn('DASHBOARD_SECRET_KEY is unset: the Default key can be revealed only until this process stops');
  return new SecretBox(randomBytes(32));
}

function decodeKey(text: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
  if (key.length !== 32) throw new Error('DASHBOARD_SECRET_KEY must be 32 bytes, as 64 hex characters or base64');
  return key;
}
