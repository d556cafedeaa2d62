import { engineCostMicro } from './cost.js';

/**
 * The remote browser's money (docs/remote-browser.md "Money"), in one place: the price of a started
 * minute is what a scrape on the engine costs (cost.ts's engineCostMicro, the one price function of
 * scrapes and batch items): datacenter, or residential through a managed pool's residential exit; the
 * reservation is the whole TTL's minutes; the charge is the started minutes, at most the reservation.
 */
export interface BrowserPrice {
  engine: 'chromium' | 'obscura';
  tier: 'datacenter' | 'residential';
}

const MINUTE_MS = 60_000;

export function browserMinuteMicro(price: BrowserPrice): number {
  // A remote browser is priced as a scrape with no add-ons: premium_proxy exactly when its exit is residential.
  return engineCostMicro(price.engine, { premium_proxy: price.tier === 'residential', proxy: null, ai_extract: null, max_cost: null, allowed_status_codes: [] });
}

/** Reserved before the upgrade: every started minute of the TTL. */
export function browserHoldMicro(price: BrowserPrice, ttlSeconds: number): number {
  return Math.ceil(ttlSeconds / 60) * browserMinuteMicro(price);
}

/** Charged when the connection ends: each started minute of its life (one at least), capped at the reservation. */
export function browserChargeMicro(price: BrowserPrice, durationMs: number, holdMicro: number): number {
  const minutes = Math.max(1, Math.ceil(durationMs / MINUTE_MS));
  return Math.min(holdMicro, minutes * browserMinuteMicro(price));
}
