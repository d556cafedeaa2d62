import type { LookupFunction } from 'node:net';
import { hostname } from 'node:os';
import { Agent, request } from 'undici';
import { checkTargetUrl, resolveAllowed, type EgressPolicy } from '../../lib/egress/policy.js';
import { newId } from '../../lib/ids.js';
import { claimDeliveries, openWebhookSecret, recordDeliveryOutcome, type DueDelivery } from '../../lib/store/batch/webhooks.js';
import type { GatewayContext } from '../context.js';
import { startPeriodic } from '../periodic.js';
import { SIGNATURE_HEADER, signatureHeader } from './signature.js';

export const MAX_DELIVERY_ATTEMPTS = 5;
const DELIVERY_TIMEOUT_MS = 10_000;
const DELIVERY_LEASE_MS = 60_000;
const DELIVERIES_PER_PASS = 20;

export interface WebhookDeliverer {
  tick(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Sends queued webhook deliveries (rows in PostgreSQL, so a restart loses none). A 2xx answer delivers;
 * anything else is retried after base, 4x base, 16x base... until MAX_DELIVERY_ATTEMPTS. Every connection
 * goes through the SSRF policy on the resolved address, so a webhook cannot reach a private network.
 */
export function startWebhookDeliverer(context: GatewayContext, options: { autoStart?: boolean } = {}): WebhookDeliverer {
  const owner = `${hostname()}:${process.pid}:${newId()}`;
  const agent = guardedAgent(context.egressPolicy);

  const pass = async () => {
    const due = await claimDeliveries(context.db, owner, DELIVERY_LEASE_MS, DELIVERIES_PER_PASS);
    await Promise.all(due.map((delivery) => deliver(delivery)));
  };

  const deliver = async (delivery: DueDelivery) => {
    const failure = await send(delivery);
    if (failure === null) return recordDeliveryOutcome(context.db, delivery.id, { delivered: true });
    const retryInMs = delivery.attempts >= MAX_DELIVERY_ATTEMPTS || delivery.url === null
      ? null
      : context.config.WEBHOOK_RETRY_BASE_MS * 4 ** (delivery.attempts - 1);
    context.logger.warn({ delivery: delivery.id, attempts: delivery.attempts, error: failure }, 'webhook delivery failed');
    return recordDeliveryOutcome(context.db, delivery.id, { delivered: false, error: failure, retryInMs });
  };

  /** Null when delivered, else why not. */
  const send = async (delivery: DueDelivery): Promise<string | null> => {
    if (delivery.url === null || delivery.secret === null) return 'the webhook endpoint was deleted';
    const secret = openWebhookSecret(context.box, delivery);
    if (secret === null) return 'the webhook secret was sealed under another sealing key (DASHBOARD_SECRET_KEY) and cannot be opened: create the endpoint again';
    try {
      const url = checkTargetUrl(delivery.url, context.egressPolicy);
      const response = await request(url, {
        method: 'POST',
        dispatcher: agent,
        headers: {
          'content-type': 'application/json',
          'user-agent': `Trawler-Webhooks/${context.version}`,
          'trawler-event': delivery.event,
          'trawler-delivery': delivery.id,
          [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(secret, delivery.payload),
        },
        body: delivery.payload,
        headersTimeout: DELIVERY_TIMEOUT_MS,
        bodyTimeout: DELIVERY_TIMEOUT_MS,
      });
      await response.body.dump();
      return response.statusCode >= 200 && response.statusCode < 300 ? null : `endpoint answered ${response.statusCode}`;
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };

  const periodic = startPeriodic({
    intervalMs: context.config.BATCH_DISPATCH_INTERVAL_MS,
    autoStart: options.autoStart,
    pass,
    onError: (error) => context.logger.warn({ err: error }, 'webhook pass failed'),
  });

  return {
    tick: periodic.tick,
    async stop() {
      await periodic.stop();
      await agent.close();
    },
  };
}

/** An undici agent whose DNS lookup refuses any address the egress policy refuses (rebinding included). */
export function guardedAgent(policy: EgressPolicy, timeoutMs = DELIVERY_TIMEOUT_MS): Agent {
  const lookup: LookupFunction = (host, options, callback) => {
    resolveAllowed(host, policy)
      .then((addresses) => {
        const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
        if (options.all) callback(null, entries);
        else callback(null, entries[0].address, entries[0].family);
      })
      .catch((error: unknown) => callback(Object.assign(new Error(error instanceof Error ? error.message : String(error)), { code: 'EBLOCKED' }), ''));
  };
  return new Agent({ connect: { timeout: timeoutMs, lookup } });
}
