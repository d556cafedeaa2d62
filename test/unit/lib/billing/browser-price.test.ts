import { describe, expect, it } from 'vitest';
import { browserChargeMicro, browserHoldMicro } from '../../../../lib/billing/browser-price.js';

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
});
