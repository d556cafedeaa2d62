import { describe, expect, it } from 'vitest';
import type { EngineName } from '../../../../lib/protocol/engines.js';
import { checkMaxCost, engineCostMicro, holdMicro, isBillableStatus } from '../../../../lib/billing/cost.js';
import { isCacheable } from '../../../../lib/scrape/cache-policy.js';
import type { EnginePlan } from '../../../../lib/scrape/engine-selection.js';
import { body, expectServiceError } from '../scrape/parse-params.js';

const M = 1_000_000;
const plan = (rungs: EngineName[], climbToCamoufox = false): EnginePlan => ({ rungs, climbToCamoufox });
const PROXY = 'http://proxy.example.com:3128';

describe('engine cost', () => {
  it.each([
    ['fetch', {}, 1],
    ['obscura', {}, 3],
    ['chromium', {}, 8],
    ['camoufox', {}, 25],
    ['fetch', { premium_proxy: true }, 10],
    ['obscura', { premium_proxy: true }, 25],
    ['chromium', { premium_proxy: true }, 32],
    ['camoufox', { premium_proxy: true }, 25],
    ['fetch', { proxy: PROXY }, 1],
    ['fetch', { ai_extract: { prompt: 'x' } }, 5],
    ['chromium', { premium_proxy: true, ai_extract: { prompt: 'x' } }, 36],
  ] as const)('%s with %j costs %d credits', (engine, fields, credits) => {
    expect(engineCostMicro(engine, body(fields))).toBe(credits * M);
  });
});

describe('reservation and max_cost', () => {
  it('reserves the top rung under mode=auto', () => {
    expect(holdMicro(plan(['fetch', 'obscura']), body({ mode: 'auto' }))).toBe(3 * M);
  });

  it('reserves camoufox when the climb is possible', () => {
    expect(holdMicro(plan(['fetch'], true), body({ proxy: PROXY }))).toBe(25 * M);
  });

  it('passes when max_cost covers the dearest rung', () => {
    expect(() => checkMaxCost(plan(['fetch', 'obscura']), body({ mode: 'auto', max_cost: 3 }))).not.toThrow();
    expect(() => checkMaxCost(plan(['chromium']), body({ engine: 'chromium' }))).not.toThrow();
  });

  it.each([
    [plan(['fetch', 'obscura']), { mode: 'auto', max_cost: 2 }, 'up to 3 credits'],
    [plan(['chromium']), { engine: 'chromium', max_cost: 7 }, 'above max_cost 7'],
    [plan(['fetch']), { premium_proxy: true, max_cost: 9 }, 'up to 10 credits'],
  ])('%j with %j is MAX_COST_EXCEEDED', (enginePlan, fields, detail) => {
    expectServiceError(() => checkMaxCost(enginePlan, body(fields)), 'ERR::LIMIT::MAX_COST_EXCEEDED', detail);
  });
});

describe('billable statuses', () => {
  it.each([
    [200, {}, true],
    [404, {}, true],
    [410, {}, true],
    [403, {}, false],
    [500, {}, false],
    [301, {}, false],
    [403, { allowed_status_codes: [403] }, true],
    [500, { allowed_status_codes: [403] }, false],
  ])('%d with %j -> %s', (status, fields, billable) => {
    expect(isBillableStatus(status, body(fields))).toBe(billable);
  });
});

describe('cacheability', () => {
  it.each([
    [{}, true],
    [{ cache_ttl: 60 }, true],
    [{ method: 'POST' }, false],
    [{ method: 'HEAD' }, false],
    [{ cache: false }, false],
    [{ cache_ttl: 0 }, false],
    [{ session_id: 'sess' }, false],
    [{ js_render: true, actions: [{ type: 'click', selector: 'a' }] }, false],
  ])('%j -> %s', (fields, cacheable) => {
    expect(isCacheable(body(fields))).toBe(cacheable);
  });
});
