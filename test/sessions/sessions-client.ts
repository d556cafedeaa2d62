import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey, createOrganization, createProject, type Scope } from '../../lib/store/accounts.js';
import type { Db } from '../../lib/store/db.js';
import { authed, jsonPost, type EmbeddedService } from '../support/embedded.js';

export interface Problem {
  code: string;
  detail?: string;
  retryable?: boolean;
}

export interface SessionJson {
  id: string;
  project_id: string;
  engine: string;
  status: string;
  sticky_key: string;
  proxy: { tier: string; country: string | null; region_pool: string | null };
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  hard_expires_at?: string;
  released_at?: string;
  usage_count: number;
  context: { schema_version: number; cookies: number; origins: number; bytes: number } | null;
  domain_scores?: Record<string, { score: number }>;
  lease?: { holder: string; expires_at: string };
  warnings?: string[];
}

/** A small client for the session routes of one service and key. */
export function sessionsClient(service: EmbeddedService, secret = service.secret) {
  const base = `${service.url}/v1/sessions`;
  return {
    create: (body?: unknown) =>
      body === undefined ? fetch(base, authed(secret, { method: 'POST' })) : fetch(base, jsonPost(secret, body)),
    list: (query = '') => fetch(`${base}${query}`, authed(secret)),
    get: (id: string) => fetch(`${base}/${id}`, authed(secret)),
    context: (id: string) => fetch(`${base}/${id}/context`, authed(secret)),
    release: (id: string, query = '') => fetch(`${base}/${id}/release${query}`, authed(secret, { method: 'POST' })),
    remove: (id: string, query = '') => fetch(`${base}/${id}${query}`, authed(secret, { method: 'DELETE' })),
    scrape: (body: Record<string, unknown>) => fetch(`${service.url}/v1/scrape`, jsonPost(secret, { cache: false, ...body })),
  };
}

export async function createdSession(response: Response): Promise<SessionJson> {
  if (response.status !== 201) throw new Error(`expected 201, got ${response.status}: ${await response.text()}`);
  return (await response.json()) as SessionJson;
}

/** A key in a brand-new organization (another tenant), optionally with its own maximum session TTL. */
export async function otherTenantKey(db: Db, options: { maxTtlSeconds?: number; scopes?: Scope[] } = {}): Promise<string> {
  const org = await createOrganization(db, `other-${Math.random()}`, {
    monthlyCreditsMicro: 1_000_000_000,
    rateLimitPerSecond: 1000,
    concurrencyLimit: 10,
  });
  if (options.maxTtlSeconds !== undefined) {
    await db.query('UPDATE organizations SET max_session_ttl_seconds = $2 WHERE id = $1', [org.id, options.maxTtlSeconds]);
  }
  const project = await createProject(db, org.id, 'other');
  const scopes = options.scopes ?? ['scrape', 'sessions'];
  return (await createApiKey(db, { projectId: project.id, name: 'other', environment: 'live', scopes })).secret;
}

/** Moves a session's clock: expires it (and its hard ceiling) one second ago, as if time had passed. */
export async function expireSession(db: Db, id: string): Promise<void> {
  await db.query(
    `UPDATE sessions SET expires_at = now() - interval '1 second', hard_expires_at = now() - interval '1 second' WHERE id = $1`,
    [id],
  );
}

export async function reservationCount(db: Db): Promise<number> {
  const result = await db.query<{ count: number }>('SELECT count(*)::int AS count FROM credit_reservations');
  return result.rows[0].count;
}

/**
 * A loopback page that answers only when the test says so: `arrived` resolves when the request is
 * in, `answer()` lets it finish. Used to hold a scrape (and its session lease) open without sleeping.
 */
export async function startHeldPage() {
  let arrive: () => void = () => undefined;
  let answer: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => (arrive = resolve));
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const server = http.createServer((_req, res) => {
    arrive();
    void answered.then(() => res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'held=1; Path=/' }).end('<p>held</p>'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/held`,
    arrived,
    answer: () => answer(),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback page answering `status` with a Set-Cookie, to see whether a failed scrape saves the session's jar. */
export async function startStatusPage(status: number) {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', 'set-cookie': 'failed=1; Path=/' }).end(`<p>status ${status}</p>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/status`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
