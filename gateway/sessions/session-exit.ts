import { ServiceError } from '../../lib/errors/index.js';
import type { ExitPool } from '../../lib/proxy-pool/exit-pool.js';
import type { SessionProxyIntent } from '../../lib/store/sessions/record.js';

/**
 * A session is created only when some exit can serve its intent now (SPEC: 503 when no exit can, and
 * nothing is created): a residential tier needs the managed pool, and a region pool one of its exits.
 */
export async function assertSessionExit(pool: ExitPool | null, proxy: SessionProxyIntent): Promise<void> {
  const residential = proxy.tier === 'residential';
  if (!residential && proxy.region_pool === null) return;
  if (pool === null) {
    if (!residential) return;
    throw new ServiceError('ERR::PROXY::EXHAUSTED', 'No residential exit is available: premium_proxy needs a managed proxy pool, which this deployment does not run');
  }
  await pool.assertCanServe({ tier: residential ? 'residential' : 'datacenter', required: true, country: proxy.country, region: proxy.region_pool });
}
