import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../lib/errors/index.js';
import { API_KEY_PATTERN, generateApiKey, hashApiKey } from '../../lib/apikeys.js';
import {
  SCOPES,
  bootstrapIfEmpty,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  setOrganizationStatus,
  type Scope,
} from '../../lib/store/accounts.js';
import type { Queryable } from '../../lib/store/db.js';
import { openStore } from '../../lib/store/open.js';
import { KeyResolver, MAX_UNKNOWN_KEYS } from '../../gateway/auth/key-resolver.js';
import { authed, jsonPost } from '../support/embedded.js';
import { codeOf } from '../support/answers.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: [], env: { KEY_CACHE_SECONDS: '0' } });

async function newKey(options: { scopes?: Scope[]; environment?: 'live' | 'test'; expiresAt?: Date } = {}) {
  const { secret, key } = await createApiKey(service.db, {
    projectId: service.projectId,
    name: 'test',
    environment: options.environment ?? 'live',
    scopes: options.scopes ?? ['scrape', 'batch', 'sessions'],
    expiresAt: options.expiresAt,
  });
  return { secret, key };
}

describe('authentication', () => {
  it('answers 401 MISSING_KEY without an Authorization header', async () => {
    const response = await fetch(`${service.url}/v1/workers`);
    expect(response.status).toBe(401);
    expect(await codeOf(response)).toBe('ERR::AUTH::MISSING_KEY');
  });

  it('answers malformed and unknown keys alike with 401 INVALID_KEY', async () => {
    const malformed = await fetch(`${service.url}/v1/workers`, authed('svc_live_short'));
    const unknown = await fetch(`${service.url}/v1/workers`, authed(generateApiKey('live')));
    const notBearer = await fetch(`${service.url}/v1/workers`, { headers: { authorization: `Basic ${service.secret}` } });
    for (const response of [malformed, unknown, notBearer]) {
      expect(response.status).toBe(401);
      expect(await codeOf(response)).toBe('ERR::AUTH::INVALID_KEY');
    }
  });

  it('answers a revoked key with 401 REVOKED_KEY', async () => {
    const { secret, key } = await newKey();
    expect((await fetch(`${service.url}/v1/workers`, authed(secret))).status).toBe(200);
    expect(await revokeApiKey(service.db, key.id)).toBe(1);
    const response = await fetch(`${service.url}/v1/workers`, authed(secret));
    expect(response.status).toBe(401);
    expect(await codeOf(response)).toBe('ERR::AUTH::REVOKED_KEY');
  });

  it('answers a key past its expiry with 401 EXPIRED_KEY', async () => {
    const { secret } = await newKey({ expiresAt: new Date(Date.now() - 1000) });
    const response = await fetch(`${service.url}/v1/workers`, authed(secret));
    expect(response.status).toBe(401);
    expect(await codeOf(response)).toBe('ERR::AUTH::EXPIRED_KEY');
  });

  it('answers 403 INSUFFICIENT_SCOPE naming the missing scope', async () => {
    const { secret } = await newKey({ scopes: ['read'] });
    const response = await fetch(`${service.url}/v1/scrape`, jsonPost(secret, { url: 'http://127.0.0.1/' }));
    expect(response.status).toBe(403);
    const body = (await response.json()) as { code: string; detail: string; retryable: boolean };
    expect(body.code).toBe('ERR::AUTH::INSUFFICIENT_SCOPE');
    expect(body.detail).toContain('scrape');
    expect(body.retryable).toBe(false);
    const browser = await fetch(`${service.url}/v1/browser`, authed(secret));
    expect(browser.status).toBe(403);
    expect(((await browser.json()) as { detail: string }).detail).toContain('browser');
  });

  it('lets any valid key list workers', async () => {
    const { secret } = await newKey({ scopes: [] });
    expect((await fetch(`${service.url}/v1/workers`, authed(secret))).status).toBe(200);
  });

  it('answers 403 FORBIDDEN when the organization is suspended', async () => {
    const { secret } = await newKey();
    await setOrganizationStatus(service.db, service.organizationId, 'suspended');
    try {
      const response = await fetch(`${service.url}/v1/workers`, authed(secret));
      expect(response.status).toBe(403);
      expect(await codeOf(response)).toBe('ERR::AUTH::FORBIDDEN');
    } finally {
      await setOrganizationStatus(service.db, service.organizationId, 'active');
    }
  });
});

describe('keys', () => {
  it('bootstraps one Default live key with all five scopes, stored only as a hash', async () => {
    const keys = await listApiKeys(service.db, service.organizationId);
    const defaultKey = keys.find((k) => k.name === 'Default');
    expect(defaultKey).toMatchObject({ environment: 'live', display_prefix: service.secret.slice(0, 16) });
    expect([...(defaultKey?.scopes ?? [])].sort()).toEqual([...SCOPES].sort());
    expect(service.secret).toMatch(/^svc_live_[a-z2-7]{52}$/);
    const dump = await service.db.query('SELECT * FROM api_keys');
    expect(JSON.stringify(dump.rows)).not.toContain(service.secret);
    expect(JSON.stringify(dump.rows)).toContain(hashApiKey(service.secret));
  });

  it('generates keys of the SPEC format for both environments', () => {
    expect(generateApiKey('live')).toMatch(API_KEY_PATTERN);
    expect(generateApiKey('test')).toMatch(/^svc_test_[a-z2-7]{52}$/);
  });

  it('uses TRAWLER_BOOTSTRAP_KEY as the Default secret on first start, and bootstraps only once', async () => {
    const db = await openStore({ dataDir: null });
    try {
      const secret = generateApiKey('live');
      const limits = { monthlyCreditsMicro: 1, rateLimitPerSecond: 1, concurrencyLimit: 1 };
      const first = await bootstrapIfEmpty(db, limits, secret);
      expect(first?.secret).toBe(secret);
      expect(await bootstrapIfEmpty(db, limits)).toBeNull();
      expect((await listApiKeys(db)).length).toBe(1);
      await expect(bootstrapIfEmpty(await openStore({ dataDir: null }), limits, 'svc_live_tooshort')).rejects.toThrow(/52 characters/);
    } finally {
      await db.close();
    }
  });

  it('makes a revocation effective within 60 seconds even through the lookup cache', async () => {
    const { secret, key } = await newKey();
    const resolver = new KeyResolver(service.db, 60);
    const start = Date.now();
    await resolver.resolve(`Bearer ${secret}`, start);
    await revokeApiKey(service.db, key.display_prefix);
    const later = resolver.resolve(`Bearer ${secret}`, start + 60_001);
    await expect(later).rejects.toBeInstanceOf(ServiceError);
    await expect(resolver.resolve(`Bearer ${secret}`, start + 60_001)).rejects.toMatchObject({ code: 'ERR::AUTH::REVOKED_KEY' });
  });

  it('remembers a well-formed unknown key, so repeating it costs no query, until a key with that secret is created', async () => {
    let lookups = 0;
    const counting: Queryable = {
      query: (sql, params, options) => {
        if (sql.includes('secret_hash')) lookups += 1;
        return service.db.query(sql, params, options);
      },
      exec: (sql) => service.db.exec(sql),
    };
    const resolver = new KeyResolver(counting, 30);
    try {
      const secret = generateApiKey('live');
      for (let i = 0; i < 5; i += 1) await expect(resolver.resolve(`Bearer ${secret}`)).rejects.toMatchObject({ code: 'ERR::AUTH::INVALID_KEY' });
      expect(lookups).toBe(1);
      // A secret chosen before its key exists (TRAWLER_BOOTSTRAP_KEY's way): creating it here drops the entry at once.
      const { key } = await createApiKey(service.db, { projectId: service.projectId, name: 'chosen', environment: 'live', scopes: ['read'], secret });
      expect((await resolver.resolve(`Bearer ${secret}`)).key.id).toBe(key.id);
      expect(lookups).toBe(2);
      // Created elsewhere (no notice here), the entry lasts at most the cache's seconds.
      const elsewhere = generateApiKey('live');
      await expect(resolver.resolve(`Bearer ${elsewhere}`)).rejects.toMatchObject({ code: 'ERR::AUTH::INVALID_KEY' });
      await service.db.query(`UPDATE api_keys SET secret_hash = $1 WHERE id = $2`, [hashApiKey(elsewhere), key.id]);
      await expect(resolver.resolve(`Bearer ${elsewhere}`, Date.now() + 30_001)).resolves.toMatchObject({ key: { id: key.id } });
    } finally {
      resolver.close();
    }
  });

  it('remembers at most MAX_UNKNOWN_KEYS unknown keys, forgetting the oldest first', async () => {
    let lookups = 0;
    const empty: Queryable = {
      query: async () => {
        lookups += 1;
        return { rows: [], rowCount: 0 };
      },
      exec: async () => undefined,
    };
    const resolver = new KeyResolver(empty, 30);
    try {
      const secrets = Array.from({ length: MAX_UNKNOWN_KEYS + 1 }, () => generateApiKey('test'));
      for (const secret of secrets) await expect(resolver.resolve(`Bearer ${secret}`)).rejects.toMatchObject({ code: 'ERR::AUTH::INVALID_KEY' });
      expect(lookups).toBe(secrets.length);
      await expect(resolver.resolve(`Bearer ${secrets.at(-1)!}`)).rejects.toMatchObject({ code: 'ERR::AUTH::INVALID_KEY' });
      expect(lookups).toBe(secrets.length);
      await expect(resolver.resolve(`Bearer ${secrets[0]}`)).rejects.toMatchObject({ code: 'ERR::AUTH::INVALID_KEY' });
      expect(lookups).toBe(secrets.length + 1);
    } finally {
      resolver.close();
    }
  });
});
