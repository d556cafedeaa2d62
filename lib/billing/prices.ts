import type { EngineName } from '../protocol/engines.js';

/** Price in whole credits per engine and exit class (docs/api-reference.md "Engines and prices"). */
export const ENGINE_PRICE_CREDITS: Record<EngineName, { datacenter: number; residential: number }> = {
  fetch: { datacenter: 1, residential: 10 },
  obscura: { datacenter: 3, residential: 25 },
  chromium: { datacenter: 8, residential: 32 },
  camoufox: { datacenter: 25, residential: 25 },
};

export const MICRO_PER_CREDIT = 1_000_000;
export const AI_EXTRACT_CREDITS = 4;
