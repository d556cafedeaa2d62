import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { authed, jsonPost, startEmbedded, type EmbeddedOptions, type EmbeddedService } from './embedded.js';
import { creditTotals } from './ledger.js';
import { forSuite } from './suite-service.js';

/** An embedded service whose PROXY_POOLS_FILE holds `exits`; health read from the store for every request. */
export interface PoolService extends EmbeddedService {
  scrape(body: Record<string, unknown>): Promise<Response>;
  logEntry(requestId: string | null): Promise<Record<string, unknown>>;
  spentMicro(): Promise<number>;
}

export function writePoolFile(exits: unknown[]): { file: string; remove(): void } {
  const dir = mkdtempSync(path.join(tmpdir(), 'trawler-pool-'));
  const file = path.join(dir, 'pools.json');
  writeFileSync(file, JSON.stringify({ exits }));
  return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startPoolService(exits: unknown[], options: EmbeddedOptions = {}): Promise<PoolService> {
  const pool = writePoolFile(exits);
  const service = await startEmbedded({
    ...options,
    env: { PROXY_POOLS_FILE: pool.file, PROXY_HEALTH_REFRESH_MS: '0', ...options.env },
  });
  return {
    ...service,
    scrape: (body) => fetch(`${service.url}/v1/scrape`, jsonPost(service.secret, { cache: false, ...body })),
    logEntry: async (requestId) => {
      const response = await fetch(`${service.url}/v1/requests/${requestId}`, authed(service.secret));
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    },
    spentMicro: async () => {
      return (await creditTotals(service.db, 'all')).spent;
    },
    stop: async () => {
      await service.stop();
      pool.remove();
    },
  };
}

/** startPoolService for a suite (test/support/suite-service.ts): `exits` read in its beforeAll, after the hooks registered before. */
export function poolServiceForSuite(exits: () => unknown[], options: EmbeddedOptions = {}): PoolService {
  return forSuite(() => startPoolService(exits(), options));
}
