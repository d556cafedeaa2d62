import type { Request, Response } from 'express';
import WebSocket from 'ws';
import { BusError } from '../../lib/bus/bus.js';
import { browserHoldMicro, type BrowserPrice } from '../../lib/billing/browser-price.js';
import { ServiceError } from '../../lib/errors/index.js';
import { BROWSER_OPEN_TYPE, BrowserLeaseSchema, browserSubject, browserWorkerSubject, type BrowserLease, type BrowserOpen } from '../../lib/protocol/index.js';
import { admitPaid } from '../admission/paid-admission.js';
import { creditAccountOf } from '../auth/credit-account.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { parseBrowserQuery, type BrowserParams } from './params.js';
import { checkOutBrowserSession, type BrowserSessionCheckout } from './session.js';
import { pendingUpgradeOf } from './upgrade.js';
import { chooseBrowserExit } from './exit.js';
import type { BrowserExit, Taken } from './connection-parts.js';

/** How long the gateway waits for a worker to lease a context, then to accept the relay socket. */
const LEASE_TIMEOUT_MS = 30_000;
const WORKER_CONNECT_TIMEOUT_MS = 10_000;
const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;


/**
 * GET /v1/browser (docs/remote-browser.md "Gateway wiring"): after the key, rate limit and scope
 * (the app's chain), the query, the engine, the concurrency slot and the credit hold of the whole TTL
 * (admitPaid, the paid admission a scrape's shares: admission/paid-admission.ts),
 * the session's lease and a worker's context, each refused as a problem+json before the upgrade and
 * each given back when a later one refuses. Let in, the connection belongs to the relay (connections.ts).
 */
export async function openRemoteBrowser(context: GatewayContext, req: Request, res: Response): Promise<void> {
  if (!context.config.BROWSER_ROUTE_ENABLED) {
    throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'The remote browser is turned off on this deployment (BROWSER_ROUTE_ENABLED=false)');
  }
  const params = parseBrowserQuery(req.query as Record<string, unknown>);
  if (!context.directory.browserEngines().has(params.engine)) {
    throw new ServiceError('ERR::ENGINE::UNAVAILABLE', `No worker of this deployment serves remote browsers on engine ${params.engine}`);
  }
  const upgrade = pendingUpgradeOf(req);
  if (!upgrade) throw new ServiceError('ERR::REQUEST::INVALID', 'GET /v1/browser is a WebSocket upgrade: connect a CDP client (Playwright connectOverCDP, puppeteer.connect) to ws://…/v1/browser');
  const principal = principalOf(res);
  const requestId = String(res.locals.requestId);
  const taken: Taken = { admission: null, session: null };
  let worker: WebSocket | null = null;
  try {
    const exit = await chooseBrowserExit(context, params, principal.project.id);
    const price: BrowserPrice = { engine: params.engine, tier: exit?.tier ?? 'datacenter' };
    const holdMicro = browserHoldMicro(price, params.ttl);
    // The step every paid operation shares (a scrape's too): the slot, then the hold, the slot given back when the hold is refused.
    taken.admission = await admitPaid(context, { organization: principal.organization, account: creditAccountOf(context, principal), requestId, holdMicro });
    if (params.session_id !== null) {
      taken.session = await checkOutBrowserSession(context.db, params.session_id, principal.organization.id, requestId, params.ttl * 1000);
    }
    const relayUrl = await leaseContext(context, openRequest(requestId, params, exit, taken.session));
    worker = await connectWorker(relayUrl);
    upgrade.detach();
    context.browsers.accept({ context, req, res, upgrade, worker, params, price, holdMicro, taken, principal, requestId, exit });
  } catch (error) {
    worker?.terminate();
    await context.browsers.giveBack(taken);
    throw error;
  }
}

function openRequest(requestId: string, params: BrowserParams, exit: BrowserExit | null, session: BrowserSessionCheckout | null): BrowserOpen {
  return {
    type: BROWSER_OPEN_TYPE,
    request_id: requestId,
    engine: params.engine,
    ttl_ms: params.ttl * 1000,
    idle_ms: params.idle_timeout * 1000,
    headless: params.headless,
    upstream_proxy: exit?.url ?? params.proxy,
    upstream_trusted: exit !== null,
    session: session?.state ?? null,
  };
}

/**
 * A worker of the engine's pool opens a context and answers the one-time URL of its relay. The queue
 * group picks one member; when that one is full (or draining) the lease goes to the other live members
 * by their own subjects, the most free slots first, each asked once (docs/remote-browser.md "A full worker").
 */
async function leaseContext(context: GatewayContext, open: BrowserOpen): Promise<string> {
  const asked = new Set<string>();
  let answer = await askForLease(context, browserSubject(open.engine), open, false);
  while (answer === null || (!answer.ok && answer.busy)) {
    if (answer?.worker_id) asked.add(answer.worker_id);
    const next = context.directory.browserWorkersByRoom(open.engine, asked)[0];
    if (next === undefined) break;
    asked.add(next);
    answer = await askForLease(context, browserWorkerSubject(open.engine, next), open, true);
  }
  if (answer === null) throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'No remote-browser worker answered in time; retry', { retryAfterSeconds: 1 });
  if (!answer.ok) throw ServiceError.fromWire(answer.error);
  return answer.relay_url;
}

/** One lease request; null when a worker asked by its own subject did not answer (it went meanwhile). */
async function askForLease(context: GatewayContext, subject: string, open: BrowserOpen, direct: boolean): Promise<BrowserLease | null> {
  try {
    const answer = await context.bus.requestJson(subject, open, BrowserLeaseSchema, { timeoutMs: LEASE_TIMEOUT_MS });
    if (!answer.ok) throw new ServiceError('ERR::INTERNAL::ERROR', 'Malformed remote-browser lease from a worker');
    return answer.value;
  } catch (error) {
    if (direct && error instanceof BusError) return null;
    if (error instanceof BusError && error.kind === 'no_responders') {
      throw new ServiceError('ERR::ENGINE::UNAVAILABLE', `No worker of this deployment serves remote browsers on engine ${open.engine}`);
    }
    if (error instanceof BusError) throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', `No remote-browser worker answered in time (${error.kind}); retry`, { retryAfterSeconds: 1 });
    throw error;
  }
}

async function connectWorker(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES, handshakeTimeout: WORKER_CONNECT_TIMEOUT_MS });
  try {
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', () => reject(new Error('the worker refused the relay ticket')));
    });
    return socket;
  } catch (error) {
    socket.terminate();
    throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The remote-browser worker could not be reached; retry', { retryAfterSeconds: 1, cause: error });
  }
}
