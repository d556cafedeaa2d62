import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { problemOf as problemAnswer } from '../support/answers.js';
import { deadPort, startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let exits: Record<string, ExitServer>;
let down: number;

beforeAll(async () => {
  target = await startExitTarget();
  const [refusing, limited, chA, chB, dcX, dcY, auOk] = await Promise.all([
    startStaticExit({ address: '127.0.0.30', refuseWith: 407 }),
    startStaticExit({ address: '127.0.0.31', refuseWith: 429 }),
    startStaticExit({ address: '127.0.0.5' }),
    startStaticExit({ address: '127.0.0.6' }),
    startStaticExit({ address: '127.0.0.7' }),
    startStaticExit({ address: '127.0.0.8' }),
    startStaticExit({ address: '127.0.0.32' }),
  ]);
  exits = { refusing, limited, chA, chB, dcX, dcY, auOk };
  down = await deadPort();
});

afterAll(async () => {
  await Promise.all([target?.close(), ...Object.values(exits ?? {}).map((e) => e.close())]);
});
const service = poolServiceForSuite(() => {
  const { refusing, limited, chA, chB, dcX, dcY, auOk } = exits;
  return [
    { id: 'au-refusing', url: 'http://wrong:creds@127.0.0.1:' + refusing.port, tier: 'residential', country: 'AU' },
    { id: 'br-limited', url: limited.url, tier: 'residential', country: 'BR' },
    { id: 'ca-down', url: `http://127.0.0.1:${down}`, tier: 'residential', country: 'CA' },
    { id: 'ch-a', url: chA.url, tier: 'residential', country: 'CH' },
    { id: 'ch-b', url: chB.url, tier: 'residential', country: 'CH' },
    { id: 'dc-x', url: dcX.url, tier: 'datacenter', country: 'NL' },
    { id: 'dc-y', url: dcY.url, tier: 'datacenter', country: 'NL' },
    { id: 'nz-down', url: `http://127.0.0.1:${down}`, tier: 'residential', country: 'NZ' },
    { id: 'nz-ok', url: auOk.url, tier: 'residential', country: 'NZ' },
  ];
});

beforeEach(async () => {
  // Each rule starts from a pool with no history (what the health rows hold is the state under test).
  await service.db.query('DELETE FROM proxy_exit_health');
  target.challenge([]);
  target.forbid([]);
});

type Problem = { code: string; detail?: string; retryable: boolean; diagnostics?: { attempts?: { proxy: string | null }[] } };

const problemOf = async (response: Response) => (await problemAnswer(response)) as Problem;

async function healthRow(exitKey: string, domain = ''): Promise<{ cooldown_until: number; failures: number; bans: number; auth_failed_hash: string | null } | undefined> {
  const rows = await service.db.query<{ cooldown_until: number; failures: number; bans: number; auth_failed_hash: string | null }>(
    'SELECT cooldown_until::float8 AS cooldown_until, failures::float8 AS failures, bans::float8 AS bans, auth_failed_hash FROM proxy_exit_health WHERE exit_key = $1 AND domain = $2',
    [exitKey, domain],
  );
  return rows.rows[0];
}

describe('pool exit health', () => {
  it('answers a 407 from a pool exit with AUTH_FAILED and takes the exit out of rotation', async () => {
    const first = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'AU' });
    expect(first.status).toBe(502);
    expect(first.headers.get('x-credits-charged')).toBe('0');
    expect((await problemOf(first)).code).toBe('ERR::PROXY::AUTH_FAILED');
    expect((await healthRow('au-refusing'))?.auth_failed_hash).toMatch(/^[0-9a-f]{16}$/);
    const second = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'AU' });
    expect(second.status).toBe(503);
    expect((await problemOf(second)).code).toBe('ERR::PROXY::EXHAUSTED');
    expect(exits.refusing.requests()).toBe(1);
    const status = await service.gateway.context.exitPool?.status();
    expect(status?.find((s) => s.key === 'au-refusing')?.state).toBe('auth_failed');
    const metrics = await service.registry.metrics();
    expect(metrics).toMatch(/^trawler_proxy_exit_uses_total\{tier="residential",exit="au-refusing",outcome="auth"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^trawler_proxy_exits\{tier="residential",state="auth_failed"[^}]*\} 1$/m);
    expect(metrics).toMatch(/^trawler_proxy_exhausted_total\{tier="residential"[^}]*\} [1-9]/m);
  });

  it("answers a provider's 429 with RATE_LIMITED (retryable) and cools the exit down", async () => {
    const first = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'BR' });
    expect(first.status).toBe(502);
    const problem = await problemOf(first);
    expect(problem.code).toBe('ERR::PROXY::RATE_LIMITED');
    expect(problem.retryable).toBe(true);
    expect((await healthRow('br-limited'))?.cooldown_until).toBeGreaterThan(Date.now());
    const second = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'BR' });
    expect((await problemOf(second)).code).toBe('ERR::PROXY::EXHAUSTED');
  });

  it('moves a request off an exit that is down to another one, free, and cools the dead one', async () => {
    const before = target.seen().length;
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'NZ' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('10');
    expect(target.seen().slice(before)).toEqual(['127.0.0.32']);
    expect((await healthRow('nz-down'))?.cooldown_until).toBeGreaterThan(Date.now());
    const proxy = (await service.logEntry(response.headers.get('x-request-id'))).proxy as Record<string, unknown>;
    // Rotation may have tried the live exit first; a dead one tried is listed before it.
    expect((proxy.endpoints as string[]).at(-1)).toBe('nz-ok');
  });

  it('answers an exit that is down and alone with UNREACHABLE, then EXHAUSTED while it cools down', async () => {
    const first = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'CA' });
    expect(first.status).toBe(502);
    expect((await problemOf(first)).code).toBe('ERR::PROXY::UNREACHABLE');
    const second = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'CA' });
    expect(second.status).toBe(503);
  });

  it('retries a challenged fetch once on a different exit, free, and bills only the page', async () => {
    target.challenge(['127.0.0.5']);
    const before = target.seen().length;
    const spent = await service.spentMicro();
    // ch-a first: with no history the rotation starts at the first configured exit.
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'CH' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('10');
    expect((await service.spentMicro()) - spent).toBe(10_000_000);
    expect(target.seen().slice(before)).toEqual(['127.0.0.5', '127.0.0.6']);
    const entry = await service.logEntry(response.headers.get('x-request-id'));
    expect(entry.proxy).toMatchObject({ source: 'pool', endpoint_id: 'ch-b', endpoints: ['ch-a', 'ch-b'], reason: 'challenge_retry' });
    expect(entry.attempts).toBe(2);
    // The challenging exit cools down for this domain only.
    expect((await healthRow('ch-a', '127.0.0.1'))?.cooldown_until).toBeGreaterThan(Date.now());
    expect((await healthRow('ch-a'))?.cooldown_until ?? 0).toBe(0);
  });

  it('lists every attempt with its exit in the problem when both exits are challenged (0 credits)', async () => {
    target.challenge(['127.0.0.5', '127.0.0.6']);
    const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'CH' });
    expect(response.status).toBe(502);
    expect(response.headers.get('x-credits-charged')).toBe('0');
    const problem = await problemOf(response);
    expect(problem.code).toBe('ERR::UPSTREAM::CHALLENGE');
    expect(problem.diagnostics?.attempts?.map((a) => a.proxy).sort()).toEqual(['ch-a', 'ch-b']);
  });

  it('does not retry a challenge with a sticky_key, nor for a POST', async () => {
    target.challenge(['127.0.0.5', '127.0.0.6']);
    for (const extra of [{ sticky_key: 'basket-1' }, { method: 'POST' }]) {
      const before = target.seen().length;
      const response = await service.scrape({ url: target.url, premium_proxy: true, proxy_country: 'CH', ...extra });
      expect(response.status).toBe(502);
      expect((await problemOf(response)).code).toBe('ERR::UPSTREAM::CHALLENGE');
      expect(target.seen().length - before).toBe(1);
    }
  });

  it('counts a bare 403 from the target as a ban of that exit for that domain, then avoids it there', async () => {
    target.forbid(['127.0.0.7']);
    const seenBefore = target.seen().length;
    const statuses: string[] = [];
    for (let i = 0; i < 5; i++) {
      const response = await service.scrape({ url: target.url });
      statuses.push(response.headers.get('x-target-status') ?? '');
    }
    // dc-x first (rotation's start), banned there, then only dc-y.
    expect(target.seen().slice(seenBefore)).toEqual(['127.0.0.7', '127.0.0.8', '127.0.0.8', '127.0.0.8', '127.0.0.8']);
    expect(statuses[0]).toBe('403');
    expect((await healthRow('dc-x', '127.0.0.1'))?.bans).toBe(1);
    expect((await healthRow('dc-x'))?.bans).toBe(1);
  });

  it('uses a cooled-down exit again once its cooldown has passed', async () => {
    target.forbid(['127.0.0.7']);
    await service.scrape({ url: target.url });
    target.forbid([]);
    // The cooldown ends (as time passing would end it).
    await service.db.query(`UPDATE proxy_exit_health SET cooldown_until = 1 WHERE exit_key = 'dc-x'`);
    const before = target.seen().length;
    for (let i = 0; i < 4; i++) await service.scrape({ url: target.url });
    expect(target.seen().slice(before)).toContain('127.0.0.7');
  });
});
