import { api } from '../api.js';
import { badge, h, table, when } from '../dom.js';
import { section, type Page } from '../shell.js';
import type { ExitStatus } from '../../../lib/proxy-pool/exit-pool.js';

interface ProxyExits {
  configured: boolean;
  exits: ExitStatus[];
  domains: Array<{ exit: string; domain: string; bans: number; cooling_until: string | null }>;
}

/** The deployment's managed proxy pool and each exit's shared health (docs/proxy-pools.md). */
export const proxyExitsPage: Page = async ({ org }) => {
  const pool = await api<ProxyExits>('GET', `/orgs/${org.id}/proxy-exits`);
  if (!pool.configured) {
    return section('Proxy exits', h('p', { class: 'empty' }, 'No managed proxy pool is configured (PROXY_POOLS_FILE).'));
  }
  return h(
    'div',
    {},
    section(
      'Proxy exits',
      table(
        ['Exit', 'Tier', 'Country', 'Region', 'Provider', 'Endpoint', 'State', 'Cooling until', 'OK', 'Failed', 'Bans'],
        pool.exits.map((e) => [
          h('code', {}, e.key),
          e.tier,
          e.country ?? '',
          e.region ?? '',
          e.provider ?? '',
          h('code', {}, e.endpoint),
          badge(e.state),
          e.cooldown_until ? when(e.cooldown_until) : '',
          String(e.successes),
          String(e.failures),
          String(e.bans),
        ]),
      ),
    ),
    section(
      'Bans by target domain',
      table(
        ['Exit', 'Domain', 'Bans', 'Cooling until'],
        pool.domains.map((d) => [h('code', {}, d.exit), d.domain, String(d.bans), d.cooling_until ? when(d.cooling_until) : '']),
        'No exit has been banned by a site.',
      ),
    ),
  );
};
