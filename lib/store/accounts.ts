import { newId } from '../ids.js';
import { generateApiKey, hashApiKey, keyDisplayPrefix, API_KEY_PATTERN, type KeyEnvironment } from '../apikeys.js';
import type { Db, Queryable } from './db.js';

export const SCOPES = ['scrape', 'batch', 'sessions', 'browser', 'read'] as const;
export type Scope = (typeof SCOPES)[number];
/** docs/api-reference.md "Authentication": scopes a new key gets unless others are chosen. */
export const DEFAULT_SCOPES: Scope[] = ['scrape', 'batch', 'sessions'];

export interface Organization {
  id: string;
  name: string;
  status: 'active' | 'suspended';
  created_at: Date;
  monthly_credits_micro: number;
  rate_limit_per_second: number;
  concurrency_limit: number;
  entitled_engines: string[];
  max_session_ttl_seconds: number;
}

export interface Project {
  id: string;
  organization_id: string;
  name: string;
  defaults: Record<string, unknown>;
  archived_at: Date | null;
}

export interface ApiKeyRecord {
  id: string;
  organization_id: string;
  project_id: string;
  name: string;
  environment: KeyEnvironment;
  display_prefix: string;
  scopes: Scope[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
  /** The dashboard's own short-lived key (dashboard/api-client.ts); read by key lookups only. */
  internal?: boolean;
}

export interface OrganizationLimits {
  monthlyCreditsMicro: number;
  rateLimitPerSecond: number;
  concurrencyLimit: number;
}

export async function createOrganization(db: Queryable, name: string, limits: OrganizationLimits): Promise<Organization> {
  const result = await db.query<Organization>(
    `INSERT INTO organizations (id, name, monthly_credits_micro, rate_limit_per_second, concurrency_limit)
     VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [newId(), name, limits.monthlyCreditsMicro, limits.rateLimitPerSecond, limits.concurrencyLimit],
  );
  return result.rows[0];
}

export async function createProject(db: Queryable, organizationId: string, name: string): Promise<Project> {
  const result = await db.query<Project>(
    'INSERT INTO projects (id, organization_id, name) VALUES ($1, $2, $3) RETURNING *',
    [newId(), organizationId, name],
  );
  return result.rows[0];
}

export interface CreateKeyInput {
  projectId: string;
  name: string;
  environment: KeyEnvironment;
  scopes: Scope[];
  expiresAt?: Date | null;
  /** Use this secret instead of generating one (bootstrap automation); must have the key format. */
  secret?: string;
}

type KeyCreatedListener = (secretHash: string) => void;
const keyCreatedListeners = new Set<KeyCreatedListener>();

/**
 * Tells `listener` the secret hash of every key this process creates, so a gateway's cache of unknown
 * keys (gateway/auth/key-resolver.ts) drops that entry at once. Returns the unsubscribe.
 */
export function onKeyCreated(listener: KeyCreatedListener): () => void {
  keyCreatedListeners.add(listener);
  return () => keyCreatedListeners.delete(listener);
}

/** Creates a key and returns its secret: the only time the secret exists outside the caller. */
export async function createApiKey(db: Queryable, input: CreateKeyInput): Promise<{ key: ApiKeyRecord; secret: string }> {
  const secret = input.secret ?? generateApiKey(input.environment);
  if (!API_KEY_PATTERN.test(secret) || !secret.startsWith(`svc_${input.environment}_`)) {
    throw new Error(`a ${input.environment} key secret must match svc_${input.environment}_ followed by 52 characters of a-z2-7`);
  }
  const project = await db.query<{ organization_id: string }>('SELECT organization_id FROM projects WHERE id = $1', [input.projectId]);
  if (project.rows.length === 0) throw new Error(`no project ${input.projectId}`);
  const result = await db.query<ApiKeyRecord>(
    `INSERT INTO api_keys (id, organization_id, project_id, name, environment, display_prefix, secret_hash, scopes, expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING id, organization_id, project_id, name, environment, display_prefix, scopes, created_at, expires_at, revoked_at`,
    [newId(), project.rows[0].organization_id, input.projectId, input.name, input.environment, keyDisplayPrefix(secret),
      hashApiKey(secret), input.scopes, input.expiresAt ?? null],
  );
  for (const listener of keyCreatedListeners) listener(hashApiKey(secret));
  return { key: result.rows[0], secret };
}

export interface KeyLookup {
  key: ApiKeyRecord;
  organization: Organization;
  project: Project;
}

export async function findKeyBySecret(db: Queryable, secret: string): Promise<KeyLookup | null> {
  const result = await db.query<{ key: ApiKeyRecord; organization: Organization; project: Project }>(
    `SELECT row_to_json(k) AS key, row_to_json(o) AS organization, row_to_json(p) AS project
       FROM (SELECT id, organization_id, project_id, name, environment, display_prefix, scopes, created_at, expires_at, revoked_at, internal
               FROM api_keys WHERE secret_hash = $1) k
       JOIN organizations o ON o.id = k.organization_id
       JOIN projects p ON p.id = k.project_id`,
    [hashApiKey(secret)],
  );
  const row = result.rows[0];
  if (!row) return null;
  return {
    key: { ...row.key, created_at: new Date(row.key.created_at), expires_at: toDate(row.key.expires_at), revoked_at: toDate(row.key.revoked_at) },
    organization: { ...row.organization, created_at: new Date(row.organization.created_at) },
    project: { ...row.project, archived_at: toDate(row.project.archived_at) },
  };
}

export async function listApiKeys(db: Queryable, organizationId?: string): Promise<ApiKeyRecord[]> {
  const result = await db.query<ApiKeyRecord>(
    `SELECT id, organization_id, project_id, name, environment, display_prefix, scopes, created_at, expires_at, revoked_at
       FROM api_keys WHERE ($1::text IS NULL OR organization_id = $1) AND NOT internal ORDER BY created_at, id`,
    [organizationId ?? null],
  );
  return result.rows;
}

/** Revokes by id or by displayed prefix; returns the number of keys revoked. */
/**
 * Revokes one key named by id or displayed prefix (optionally within one organization). A prefix is 16
 * characters and may be shared: when it names several active keys nothing is revoked and the error
 * lists them, so the operator picks one by id or `--org`. Returns the number revoked (0 or 1).
 */
export async function revokeApiKey(db: Queryable, idOrPrefix: string, organizationId: string | null = null): Promise<number> {
  const matches = await db.query<{ id: string; organization_id: string }>(
    `SELECT id, organization_id FROM api_keys
      WHERE revoked_at IS NULL AND (id = $1 OR display_prefix = $1) AND ($2::text IS NULL OR organization_id = $2)
      ORDER BY id`,
    [idOrPrefix, organizationId],
  );
  if (matches.rows.length > 1) {
    const named = matches.rows.map((row) => `${row.id} (organization ${row.organization_id})`).join(', ');
    throw new Error(`${idOrPrefix} names ${matches.rows.length} active keys: ${named}; revoke one by its id, or narrow with --org`);
  }
  if (matches.rows.length === 0) return 0;
  const result = await db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL', [matches.rows[0].id]);
  return result.rowCount;
}

/** The engines an organization's plan entitles it to (empty when the organization is gone). */
export async function entitledEnginesOf(db: Queryable, organizationId: string): Promise<string[]> {
  const result = await db.query<{ entitled_engines: string[] }>('SELECT entitled_engines FROM organizations WHERE id = $1', [organizationId]);
  return result.rows[0]?.entitled_engines ?? [];
}

/** Every organization, oldest first (`trawler orgs list`). */
export async function listOrganizations(db: Queryable): Promise<Array<{ id: string; name: string; status: string; created_at: Date }>> {
  return (await db.query<{ id: string; name: string; status: string; created_at: Date }>('SELECT id, name, status, created_at FROM organizations ORDER BY created_at')).rows;
}

export async function setOrganizationStatus(db: Queryable, organizationId: string, status: 'active' | 'suspended'): Promise<void> {
  await db.query('UPDATE organizations SET status = $2 WHERE id = $1', [organizationId, status]);
}

export interface BootstrapResult {
  organization: Organization;
  project: Project;
  key: ApiKeyRecord;
  secret: string;
}

/**
 * First start with an empty store: one organization, one project and the live key named Default
 * with all five scopes. Returns null when any organization already exists.
 */
export async function bootstrapIfEmpty(db: Db, limits: OrganizationLimits, secret?: string): Promise<BootstrapResult | null> {
  return db.transaction(async (tx) => {
    await tx.query('LOCK TABLE organizations IN EXCLUSIVE MODE');
    const existing = await tx.query('SELECT 1 FROM organizations LIMIT 1');
    if (existing.rows.length > 0) return null;
    const organization = await createOrganization(tx, 'Default organization', limits);
    const project = await createProject(tx, organization.id, 'Default project');
    const created = await createApiKey(tx, {
      projectId: project.id,
      name: 'Default',
      environment: 'live',
      scopes: [...SCOPES],
      secret,
    });
    return { organization, project, ...created };
  });
}

function toDate(value: Date | string | null): Date | null {
  return value === null ? null : new Date(value);
}
