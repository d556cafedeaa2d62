import { parseArgs } from 'node:util';
import type { Config } from '../lib/config.js';
import type { KeyEnvironment } from '../lib/apikeys.js';
import {
  DEFAULT_SCOPES,
  SCOPES,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  listOrganizations, setOrganizationStatus,
  type Scope,
} from '../lib/store/accounts.js';
import type { Db } from '../lib/store/db.js';
import { openStore } from '../lib/store/open.js';

async function withStore<T>(config: Config, work: (db: Db) => Promise<T>): Promise<T> {
  const db = await openStore({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR });
  try {
    return await work(db);
  } finally {
    await db.close();
  }
}

export async function runMigrate(config: Config): Promise<void> {
  await withStore(config, async (db) => process.stdout.write(`migrations applied (${db.kind})\n`));
}

/** Key management: create (secret printed once), list (prefixes only), revoke. Output is JSON. */
export async function runKeysCommand(config: Config, args: string[]): Promise<void> {
  const [action, ...rest] = args;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    strict: true,
    options: {
      project: { type: 'string' },
      env: { type: 'string', default: 'live' },
      scopes: { type: 'string' },
      name: { type: 'string', default: 'cli' },
      expires: { type: 'string' },
      org: { type: 'string' },
    },
  });
  await withStore(config, async (db) => {
    switch (action) {
      case 'create': {
        if (!values.project) throw new Error('keys create needs --project <id>');
        const environment = parseEnvironment(values.env ?? 'live');
        const scopes = values.scopes ? parseScopes(values.scopes) : DEFAULT_SCOPES;
        const expiresAt = values.expires ? parseDate(values.expires) : null;
        const { key, secret } = await createApiKey(db, { projectId: values.project, name: values.name ?? 'cli', environment, scopes, expiresAt });
        print({ ...key, secret, note: 'the secret is shown this once' });
        return;
      }
      case 'list':
        print(await listApiKeys(db, values.org));
        return;
      case 'revoke': {
        const target = positionals[0];
        if (!target) throw new Error('keys revoke needs a key id or displayed prefix');
        const revoked = await revokeApiKey(db, target, values.org ?? null);
        if (revoked === 0) throw new Error(`no active key matches ${target}`);
        print({ revoked });
        return;
      }
      default:
        throw new Error('keys needs one of: create, list, revoke');
    }
  });
}

export async function runOrgsCommand(config: Config, args: string[]): Promise<void> {
  const [action, id] = args;
  await withStore(config, async (db) => {
    if (action === 'list') {
      print(await listOrganizations(db));
      return;
    }
    if ((action === 'suspend' || action === 'activate') && id) {
      await setOrganizationStatus(db, id, action === 'suspend' ? 'suspended' : 'active');
      print({ id, status: action === 'suspend' ? 'suspended' : 'active' });
      return;
    }
    throw new Error('orgs needs: list | suspend <id> | activate <id>');
  });
}

function parseEnvironment(value: string): KeyEnvironment {
  if (value === 'live' || value === 'test') return value;
  throw new Error('--env must be live or test');
}

function parseScopes(value: string): Scope[] {
  const scopes = value.split(',').map((s) => s.trim()).filter(Boolean);
  for (const scope of scopes) {
    if (!(SCOPES as readonly string[]).includes(scope)) throw new Error(`unknown scope ${scope}; scopes are ${SCOPES.join(', ')}`);
  }
  return scopes as Scope[];
}

function parseDate(value: string): Date {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw new Error(`--expires must be a date-time, got ${value}`);
  return date;
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
