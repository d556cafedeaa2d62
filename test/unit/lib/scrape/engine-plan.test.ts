import { describe, expect, it } from 'vitest';
import type { EngineName } from '../../../../lib/protocol/engines.js';
import { planEngines, type Deployment } from '../../../../lib/scrape/engine-selection.js';
import { body, expectServiceError } from './parse-params.js';

const ALL: EngineName[] = ['fetch', 'obscura', 'chromium', 'camoufox'];

function deployment(overrides: Partial<Deployment> = {}): Deployment {
  return {
    deployed: new Set<EngineName>(['fetch', 'obscura', 'chromium']),
    entitled: new Set<EngineName>(ALL),
    managedProxyPool: false,
    aiModel: false,
    ...overrides,
  };
}

const PROXY = 'http://proxy.example.com:3128';

describe('engine plans', () => {
  it.each([
    [{}, ['fetch']],
    [{ js_render: true }, ['obscura']],
    [{ engine: 'chromium' }, ['chromium']],
    [{ js_render: true, engine: 'chromium' }, ['chromium']],
    [{ mode: 'auto' }, ['fetch', 'obscura']],
    [{ mode: 'auto', wait_for: '#app' }, ['obscura']],
    [{ js_render: true, wait: 500, block_resources: ['image'], headless: true }, ['obscura']],
    [{ engine: 'chromium', screenshot: true, headless: false }, ['chromium']],
    [{ engine: 'chromium', response_format: 'pdf' }, ['chromium']],
  ])('%j -> %j', (fields, rungs) => {
    expect(planEngines(body(fields), deployment()).rungs).toEqual(rungs);
  });

  it('mode=auto drops a rung that is not deployed', () => {
    const plan = planEngines(body({ mode: 'auto' }), deployment({ deployed: new Set<EngineName>(['fetch']) }));
    expect(plan.rungs).toEqual(['fetch']);
  });

  it('block_resources=none is allowed on the fetch tier', () => {
    expect(planEngines(body({ block_resources: ['none'] }), deployment()).rungs).toEqual(['fetch']);
  });

  it('a session pins its engine', () => {
    expect(planEngines(body({ session_id: 's' }), deployment(), { engine: 'chromium' }).rungs).toEqual(['chromium']);
  });
});

describe('engine plan errors', () => {
  it.each([
    [{ wait_for: '#app' }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'wait_for need a browser engine'],
    [{ wait: 100 }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'wait need'],
    [{ block_resources: ['image'] }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'block_resources'],
    [{ headless: true }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'headless'],
    [{ network_capture: {} }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'network_capture'],
    [{ actions: [{ type: 'click', selector: 'a' }] }, 'ERR::REQUEST::INCOMPATIBLE_FLAGS', 'actions'],
    [{ headless: false }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'headless=false needs engine=chromium'],
    [{ js_render: true, headless: false }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'headless=false'],
    [{ screenshot: true }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'screenshots need'],
    [{ js_render: true, screenshot: true }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'engine obscura'],
    [{ js_render: true, actions: [{ type: 'screenshot' }] }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'screenshots need'],
    [{ mode: 'auto', screenshot: true }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'mode=auto cannot take a screenshot'],
    [{ mode: 'auto', response_format: 'pdf' }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'mode=auto cannot render a PDF'],
    [{ response_format: 'pdf' }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'response_format=pdf needs engine=chromium'],
    [{ js_render: true, response_format: 'pdf' }, 'ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'pdf'],
    [{ stealth: true }, 'ERR::ENGINE::UNAVAILABLE', 'camoufox'],
    [{ engine: 'camoufox' }, 'ERR::ENGINE::UNAVAILABLE', 'camoufox is not deployed'],
    [{ premium_proxy: true }, 'ERR::PROXY::EXHAUSTED', 'residential'],
    [{ premium_proxy: true, proxy_country: 'US' }, 'ERR::PROXY::EXHAUSTED', ''],
    [{ sticky_key: 'cart-1' }, 'ERR::PROXY::EXHAUSTED', 'sticky_key'],
    [{ ai_extract: { prompt: 'price' } }, 'ERR::INTERNAL::UNAVAILABLE', 'ai_extract'],
  ])('%j -> %s', (fields, code, detail) => {
    expectServiceError(() => planEngines(body(fields), deployment()), code, detail);
  });

  it('an unentitled engine is 403 listing the included engines', () => {
    const entitled = new Set<EngineName>(['fetch', 'obscura']);
    expectServiceError(
      () => planEngines(body({ engine: 'chromium' }), deployment({ entitled })),
      'ERR::AUTH::ENGINE_NOT_ENTITLED',
      'included engines: fetch, obscura',
    );
  });

  it('an own proxy needs no managed pool', () => {
    expect(planEngines(body({ premium_proxy: true, proxy: PROXY }), deployment()).rungs).toEqual(['fetch']);
  });

  it('pinning an engine other than the session engine is INCOMPATIBLE_FLAGS', () => {
    expectServiceError(
      () => planEngines(body({ session_id: 's', engine: 'obscura' }), deployment(), { engine: 'chromium' }),
      'ERR::REQUEST::INCOMPATIBLE_FLAGS',
      'session_id is pinned to engine chromium',
    );
  });

  it.each([
    [{ js_render: true }, 'fetch', 'js_render=true needs a browser session'],
  ] as const)('%j on a %s session is INCOMPATIBLE_FLAGS', (fields, engine, detail) => {
    expectServiceError(() => planEngines(body({ session_id: 's', ...fields }), deployment(), { engine }), 'ERR::REQUEST::INCOMPATIBLE_FLAGS', detail);
  });

  it('js_render=true on a browser session renders on the session engine', () => {
    expect(planEngines(body({ session_id: 's', js_render: true }), deployment(), { engine: 'chromium' }).rungs).toEqual(['chromium']);
  });
});

describe('challenge climb to camoufox (bot-challenge rules 3 and 6)', () => {
  const withCamoufox = deployment({ deployed: new Set<EngineName>(ALL) });

  it.each([
    [{ proxy: PROXY }, true],
    [{ proxy: PROXY, js_render: true }, true],
    [{}, false],
    [{ proxy: PROXY, engine: 'fetch' }, false],
    [{ proxy: PROXY, mode: 'auto' }, false],
    [{ proxy: PROXY, method: 'POST' }, false],
    [{ proxy: PROXY, engine: 'chromium', headless: false }, false],
    [{ proxy: PROXY, js_render: true, actions: [{ type: 'click', selector: 'a' }] }, false],
    [{ proxy: 'socks5://proxy.example.com:1080' }, false],
    [{ proxy: 'https://proxy.example.com:443' }, false],
    [{ proxy: PROXY, max_cost: 24 }, false],
    [{ proxy: PROXY, max_cost: 25 }, true],
  ])('%j -> climb %s', (fields, climb) => {
    expect(planEngines(body(fields), withCamoufox).climbToCamoufox).toBe(climb);
  });

  it('is off where camoufox is not deployed', () => {
    expect(planEngines(body({ proxy: PROXY }), deployment()).climbToCamoufox).toBe(false);
  });
});
