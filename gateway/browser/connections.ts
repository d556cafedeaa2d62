import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import WebSocket, { WebSocketServer } from 'ws';
import { browserChargeMicro, type BrowserPrice } from '../../lib/billing/browser-price.js';
import { MICRO_PER_CREDIT } from '../../lib/billing/prices.js';
import type { Logger } from '../../lib/log.js';
import type { Db } from '../../lib/store/db.js';
import { giveBackPaid } from '../admission/paid-admission.js';
import type { Principal } from '../auth/key-resolver.js';
import { plainEntry } from '../request-log/plain-entry.js';
import type { BrowserExit, ConnectionServices, Taken } from './connection-parts.js';
import type { BrowserParams } from './params.js';
import { BrowserRelay, RELAY_CLOSE, type RelayOutcome } from './relay.js';
import { checkInBrowserSession } from './session.js';
import type { PendingUpgrade } from './upgrade.js';

const MAX_MESSAGE_BYTES = 256 * 1024 * 1024;
/** The gateway ends a connection the worker has not ended this long after its TTL. */
const BACKSTOP_MARGIN_MS = 10_000;

export interface Accepted {
  context: ConnectionServices;
  req: Request;
  res: Response;
  upgrade: PendingUpgrade;
  worker: WebSocket;
  params: BrowserParams;
  price: BrowserPrice;
  holdMicro: number;
  taken: Taken;
  principal: Principal;
  requestId: string;
  exit: BrowserExit | null;
}

/**
 * The remote-browser connections this gateway relays: each upgraded, relayed and settled exactly once
 * (charge, slot, session, request-log entry) however it ends; ended with 1001 when the gateway stops.
 */
export class BrowserConnections {
  private readonly wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: MAX_MESSAGE_BYTES });
  private readonly extraHeaders = new WeakMap<IncomingMessage, string[]>();
  private readonly relays = new Set<BrowserRelay>();
  /** The clock connections are billed by; tests move it to bill minutes they do not wait for. */
  now: () => number = Date.now;

  constructor(
    private readonly db: Db,
    private readonly logger: Logger,
  ) {
    this.wss.on('headers', (headers: string[], req: IncomingMessage) => headers.push(...(this.extraHeaders.get(req) ?? [])));
  }

  get size(): number {
    return this.relays.size;
  }

  accept(accepted: Accepted): void {
    const { req, upgrade, worker, params, holdMicro, requestId, context } = accepted;
    this.extraHeaders.set(req, [`X-Request-Id: ${requestId}`, `X-Credits-Reserved: ${holdMicro / MICRO_PER_CREDIT}`]);
    let settled: Promise<string | null> | null = null;
    this.wss.handleUpgrade(req, upgrade.socket, upgrade.head, (client) => {
      const relay = new BrowserRelay(client, worker, {
        backstopMs: params.ttl * 1000 + BACKSTOP_MARGIN_MS,
        now: this.now,
        settle: (outcome) => {
          this.relays.delete(relay);
          settled ??= context.work.track(this.settle(accepted, outcome));
          return settled;
        },
      });
      this.relays.add(relay);
      context.metrics.requests.inc({ route: '/v1/browser', method: 'GET', status: '101' });
      context.metrics.browserOpen.inc({ engine: params.engine });
    });
  }

  /** Gives back what a refused connection took: its hold at 0, its slot, its session's lease. */
  async giveBack(taken: Taken): Promise<void> {
    if (taken.admission) await giveBackPaid({ logger: this.logger }, taken.admission);
    if (taken.session) await checkInBrowserSession(this.db, taken.session, null).catch(() => undefined);
  }

  /** Ends every connection (1001), each settled, before the gateway closes its store. */
  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.relays].map((relay) => relay.shutdown()));
  }

  private async settle(accepted: Accepted, outcome: RelayOutcome): Promise<string | null> {
    const { context, price, holdMicro, taken, principal, params, requestId } = accepted;
    const chargedMicro = browserChargeMicro(price, outcome.durationMs, holdMicro);
    let charged = 0;
    try {
      const settledNow = await taken.admission!.hold.settle(chargedMicro, params.engine);
      // A hold the store lost (database crash) was never charged: say so rather than a figure not billed.
      charged = settledNow ? chargedMicro : 0;
    } catch (error) {
      this.logger.error({ err: error, request_id: requestId }, 'remote browser settlement failed');
    }
    await taken.admission?.slot.release();
    const sessionSaved = taken.session ? await checkInBrowserSession(this.db, taken.session, outcome.cookies, outcome.localStorage).catch(() => false) : null;
    context.metrics.browserOpen.dec({ engine: params.engine });
    context.metrics.browserConnections.inc({ engine: params.engine, reason: outcome.reason });
    if (charged > 0) context.metrics.creditsCharged.inc({ engine: params.engine }, charged);
    context.requestLog.add(this.entryOf(accepted, outcome, charged, sessionSaved), principal.organization.id);
    return JSON.stringify({ trawler: { credits_charged: charged / MICRO_PER_CREDIT, reason: outcome.reason } });
  }

  private entryOf(accepted: Accepted, outcome: RelayOutcome, chargedMicro: number, sessionSaved: boolean | null) {
    const { res, params, principal, requestId, exit } = accepted;
    const failed = outcome.reason === 'browser' || outcome.reason === 'worker';
    const entry = plainEntry({
      id: requestId,
      receivedAt: res.locals.receivedAt as number,
      projectId: principal.project.id,
      httpStatus: 101,
      errorCode: failed ? 'ENGINE_RENDER_FAILED' : null,
      errorDetail: failed ? `the remote browser's ${outcome.reason} went during the connection` : null,
      bytesIn: 0,
      route: '/v1/browser',
      method: 'GET',
    });
    entry.status = failed ? 'failed' : 'success';
    entry.engine = params.engine;
    entry.credits_micro = chargedMicro;
    entry.spans.total_ms = outcome.durationMs;
    if (exit) entry.proxy = { ...entry.proxy, source: 'pool', endpoint_id: exit.id, provider: exit.provider, requested_tier: 'residential', requested_country: params.proxy_country, country: exit.country };
    else if (params.proxy !== null) entry.proxy = { ...entry.proxy, source: 'custom' };
    entry.features = {
      ...entry.features,
      key_id: principal.key.id,
      answer_status: 101,
      remote_browser: {
        duration_ms: outcome.durationMs,
        end_reason: outcome.reason,
        close_code: RELAY_CLOSE[outcome.reason].code,
        ttl_seconds: params.ttl,
        idle_timeout_seconds: params.idle_timeout,
        headless: params.headless,
        session_id: params.session_id,
        session_saved: sessionSaved,
      },
    };
    return entry;
  }
}
