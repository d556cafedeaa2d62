import type { PaidAdmission } from '../admission/paid-admission.js';
import type { GatewayMetrics } from '../metrics.js';
import type { RequestLogWriter } from '../request-log/log-writer.js';
import type { WorkTracker } from '../work-tracker.js';
import type { BrowserSessionCheckout } from './session.js';

/**
 * What a remote-browser connection is made of, apart from the gateway's context: BrowserConnections is
 * part of that context, so what it holds must not name the context back (test/unit/import-cycles.test.ts).
 */

/** The gateway's parts a connection reports to when it ends. */
export interface ConnectionServices {
  work: WorkTracker;
  metrics: GatewayMetrics;
  requestLog: RequestLogWriter;
}

/** The managed pool exit a connection goes out through (premium_proxy): one for the connection's whole life. */
export interface BrowserExit {
  /** Carries the exit's credentials: travels only on the bus, never logged or answered. */
  url: string;
  id: string;
  tier: 'datacenter' | 'residential';
  country: string | null;
  provider: string | null;
}


/**
 * Everything a connection took before its upgrade; handed to the relay, or given back on a refusal:
 * the paid admission's slot and hold (admission/paid-admission.ts, as a scrape's), the session's lease.
 */
export interface Taken {
  admission: PaidAdmission | null;
  session: BrowserSessionCheckout | null;
}
