import { ServiceError } from '../../lib/errors/index.js';
import type { GatewayContext } from '../context.js';
import type { BrowserParams } from './params.js';
import type { BrowserExit } from './connection-parts.js';

/** premium_proxy's residential exit (proxy_country's when given), or null; 503 PROXY::EXHAUSTED as for a scrape. */
export async function chooseBrowserExit(context: GatewayContext, params: BrowserParams, projectId: string): Promise<BrowserExit | null> {
  if (!params.premium_proxy) return null;
  const exhausted = new ServiceError('ERR::PROXY::EXHAUSTED', 'no managed residential exit is available; pass your own proxy');
  if (!context.exitPool) throw exhausted;
  const chosen = await context.exitPool.choose({
    intent: { tier: 'residential', required: true, country: params.proxy_country, region: null },
    domain: '',
    projectId,
    stickyKey: null,
    exclude: new Set(),
  });
  if (!chosen) throw exhausted;
  const { candidate } = chosen;
  return { url: chosen.url, id: candidate.key, tier: candidate.exit.tier, country: candidate.country, provider: candidate.exit.provider };
}
