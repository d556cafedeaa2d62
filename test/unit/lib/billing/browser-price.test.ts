import { describe, expect, it } from 'vitest';
import { browserChargeMicro, browserHoldMicro, browserMinuteMicro } from '../../../../lib/billing/browser-price.js';
import { engineCostMicro } from '../../../../lib/billing/cost.js';
import { ENGINE_PRICE_CREDITS } from '../../../../lib/billing/prices.js';

const chromium = { engine: 'chromium', tier: 'datacenter' } as const;
const credits = (micro: number) => micro / 1_000_000;

describe('remote-browser price', () => {
  it('holds every started minute of the TTL at the engine price', () => {
    expect(credits(browserHoldMicro(chromium, 60))).toBe(8);
    expect(credits(browserHoldMicro(chromium, 61))).toBe(16);
    expect(credits(browserHoldMicro({ engine: 'obscura', tier: 'datacenter' }, 300))).toBe(15);
    expect(credits(browserHoldMicro({ engine: 'chromium', tier: 'residential' }, 120))).toBe(64);
  });

  it('charges each started minute, one at least, never more than the hold', () => {
    const hold = browserHoldMicro(chromium, 120);
    expect(credits(browserChargeMicro(chromium, 0, hold))).toBe(8);
    expect(credits(browserChargeMicro(chromium, 60_000, hold))).toBe(8);
    expect(credits(browserChargeMicro(chromium, 60_001, hold))).toBe(16);
    // The worker ends the TTL a moment after the gateway started counting: capped at the hold.
    expect(credits(browserChargeMicro(chromium, 120_050, hold))).toBe(16);
  });

  it("prices a minute as a scrape on the engine through the same exit class (the scrape's one price function)", () => {
    for (const engine of ['chromium', 'obscura'] as const) {
      for (const tier of ['datacenter', 'residential'] as const) {
        const scrape = engineCostMicro(engine, { premium_proxy: tier === 'residential', proxy: null, ai_extract: null, max_cost: null, allowed_status_codes: [] });
        expect(browserMinuteMicro({ engine, tier })).toBe(scrape);
        expect(credits(browserMinuteMicro({ engine, tier }))).toBe(ENGINE_PRICE_CREDITS[engine][tier]);
      }
    }
  });
});
