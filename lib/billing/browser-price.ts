import { ENGINE_PRICE_CREDITS, MICRO_PER_CREDIT } from './prices.js';

/**
 * The remote browser's money (docs/remote-browser.md "Money"), in one place: the price of a started
 * minute is the engine's datacenter scrape price (residential through a managed pool's residential
 * exit); the reservation is the whole TTL's minutes; the charge is the started minutes, at most the
 * reservation.
 */
export interface BrowserPrice {
  engine: 'chromium' | 'obscura';
  tier: 'datacenter' | 'residential';
}

const MINUTE_MS = 60_000;

export function browserMinuteMicro(price: BrowserPrice): number {
  return ENGINE_PRICE_CREDITS[price.engine][price.tier] * MICRO_PER_CREDIT;
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
