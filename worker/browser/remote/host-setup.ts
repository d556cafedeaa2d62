import { hostname } from 'node:os';
import type { Bus } from '../../../lib/bus/bus.js';
import type { Config } from '../../../lib/config.js';
import type { Logger } from '../../../lib/log.js';
import type { EngineName } from '../../../lib/protocol/index.js';
import { relayPortOf } from '../../../lib/protocol/browser.js';
import type { EgressGuard } from '../../egress/guard.js';
import { findBrowserBinary } from '../binary.js';
import { RemoteBrowserHost } from './browser-host.js';

interface HostDeps {
  config: Config;
  bus: Bus;
  logger: Logger;
  guard: EgressGuard;
}

/** The engine's remote-browser relay, or null: a fetch engine, the route turned off, or no local browser binary. */
export function remoteBrowserHost(engine: EngineName, deps: HostDeps, workerId: string): RemoteBrowserHost | null {
  if ((engine !== 'chromium' && engine !== 'obscura') || !deps.config.BROWSER_ROUTE_ENABLED) return null;
  const executablePath = findBrowserBinary(engine, { CHROMIUM_PATH: deps.config.CHROMIUM_PATH, OBSCURA_PATH: deps.config.OBSCURA_PATH });
  if (executablePath === null) return null;
  const listenHost = deps.config.BROWSER_RELAY_HOST;
  const wildcard = listenHost === '0.0.0.0' || listenHost === '::';
  return new RemoteBrowserHost(
    {
      engine,
      executablePath,
      guard: deps.guard,
      bus: deps.bus,
      logger: deps.logger.child({ engine, component: 'remote-browser' }),
      capacity: deps.config.BROWSER_SESSIONS,
      listenHost,
      port: relayPortOf(engine, deps.config.BROWSER_RELAY_PORT),
      advertiseHost: deps.config.BROWSER_RELAY_ADVERTISE_HOST ?? (wildcard ? hostname() : listenHost),
    },
    workerId,
  );
}
