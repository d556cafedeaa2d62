import { randomUUID } from 'node:crypto';
import {
  connect,
  headers as natsHeaders,
  nanos,
  StorageType,
  type ObjectStore,
  type Msg,
  type NatsConnection,
  type Subscription,
} from 'nats';
import type { z } from 'zod';
import {
  BusError,
  decodeWith,
  encodeJson,
  type Bus,
  type BusSubscription,
  type Decoded,
  type JsonHandler,
  type MessageHandler,
  type RequestHandler,
  type RequestOptions,
} from './bus.js';
import { ACCEPT_WITHIN_MS, ACCEPTED_HEADER, FAILURE_HEADER, FINAL_HEADER, LENGTH_HEADER, MAX_REPLY_BYTES, TOO_LARGE_FAILURE, toBusError } from './nats-reply-protocol.js';
import { ReplyInbox } from './reply-inbox.js';

/** A request too large for one message travels through the JetStream object store; this names it. */
const PAYLOAD_REF_HEADER = 'Trawler-Payload-Ref';
const PAYLOAD_TTL_MS = 10 * 60_000;
const ACK_PAYLOAD = new Uint8Array([0x31]);
/** Room left in every chunk for the protocol's own framing. */
const FRAME_OVERHEAD = 4096;

/**
 * NATS transport. Replies larger than the server's max_payload are streamed as chunks followed by an
 * empty sentinel message, and reassembled whole or rejected: never silently truncated.
 */
export class NatsBus implements Bus {
  readonly transport = 'nats' as const;

  private payloads: Promise<ObjectStore> | null = null;
  private readonly replies: ReplyInbox;

  private constructor(
    private readonly connection: NatsConnection,
    private readonly namespace: string,
    private readonly acceptWithinMs: number,
    private readonly maxReplyBytes: number,
  ) {
    this.replies = new ReplyInbox(connection, maxReplyBytes);
  }

  /**
   * `namespace` prefixes every subject, so several deployments (or test runs) can share one NATS.
   * `acceptWithinMs`: when a request this bus serves is acknowledged (ACCEPT_WITHIN_MS; tests shorten it).
   */
  static async connect(url: string, name: string, namespace = '', { acceptWithinMs = ACCEPT_WITHIN_MS, maxReplyBytes = MAX_REPLY_BYTES } = {}): Promise<NatsBus> {
    const connection = await connect({
      servers: url.split(',').map((s) => s.trim()),
      name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 500,
      timeout: 5000,
    });
    return new NatsBus(connection, namespace, acceptWithinMs, maxReplyBytes);
  }

  private subject(subject: string): string {
    return this.namespace ? `${this.namespace}.${subject}` : subject;
  }

  async request(subject: string, payload: Uint8Array, options: RequestOptions): Promise<Uint8Array> {
    if (this.connection.isClosed()) throw new BusError('closed', 'bus closed');
    let outgoing: Awaited<ReturnType<NatsBus['outgoing']>>;
    try {
      outgoing = await this.outgoing(payload);
    } catch (error) {
      throw toBusError(error, subject);
    }
    const { body, headers } = outgoing;
    return this.replies.request(subject, (reply) => this.connection.publish(this.subject(subject), body, { reply, headers }), options);
  }

  async requestJson<T>(subject: string, value: unknown, reply: z.ZodType<T>, options: RequestOptions): Promise<Decoded<T>> {
    return decodeWith(reply, await this.request(subject, encodeJson(value), options));
  }

  serveJson<T>(subject: string, queueGroup: string, request: z.ZodType<T>, handler: JsonHandler<T>, responderId: string): BusSubscription {
    return this.serve(subject, queueGroup, async (payload) => encodeJson(await handler(decodeWith(request, payload))), responderId);
  }

  serve(subject: string, queueGroup: string, handler: RequestHandler, responderId: string): BusSubscription {
    const chunkSize = Math.max(1024, this.connection.info!.max_payload - FRAME_OVERHEAD);
    const running = new Set<Promise<void>>();
    const subscription: Subscription = this.connection.subscribe(this.subject(subject), {
      queue: queueGroup,
      callback: (error, msg) => {
        if (error) return;
        const work = this.answer(msg, handler, chunkSize, responderId).catch(() => undefined);
        running.add(work);
        void work.finally(() => running.delete(work));
      },
    });
    return {
      drain: async () => {
        if (!subscription.isClosed()) await subscription.drain();
        await Promise.allSettled([...running]);
      },
    };
  }

  publish(subject: string, payload: Uint8Array): void {
    if (!this.connection.isClosed()) this.connection.publish(this.subject(subject), payload);
  }

  subscribe(subject: string, handler: MessageHandler): BusSubscription {
    const subscription = this.connection.subscribe(this.subject(subject), {
      callback: (error, msg) => {
        if (!error) handler(msg.data);
      },
    });
    return { drain: async () => void (subscription.isClosed() ? undefined : await subscription.drain()) };
  }

  async ping(timeoutMs: number): Promise<void> {
    if (this.connection.isClosed()) throw new BusError('closed', 'bus closed');
    await Promise.race([
      this.connection.flush(),
      new Promise((_, reject) => setTimeout(() => reject(new BusError('timeout', 'NATS ping timed out')), timeoutMs)),
    ]);
  }

  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    await this.connection.drain().catch(() => this.connection.close());
    this.replies.close();
  }

  /** Large requests go through the object store so they arrive whole; others travel as they are. */
  private async outgoing(payload: Uint8Array): Promise<{ body: Uint8Array; headers?: ReturnType<typeof natsHeaders> }> {
    if (payload.length <= this.connection.info!.max_payload - FRAME_OVERHEAD) return { body: payload };
    const name = `p-${randomUUID()}`;
    try {
      await (await this.payloadStore()).putBlob({ name }, payload);
    } catch (error) {
      throw new BusError('incomplete', `request of ${payload.length} bytes exceeds max_payload and JetStream did not take it: ${String(error)}`);
    }
    const headers = natsHeaders();
    headers.set(PAYLOAD_REF_HEADER, name);
    return { body: new Uint8Array(0), headers };
  }

  private async incoming(msg: Msg): Promise<Uint8Array> {
    const name = msg.headers?.get(PAYLOAD_REF_HEADER);
    if (!name) return msg.data;
    const store = await this.payloadStore();
    const data = await store.getBlob(name);
    await store.delete(name).catch(() => undefined);
    if (data === null) throw new Error(`request payload ${name} is gone from the object store`);
    return data;
  }

  private payloadStore(): Promise<ObjectStore> {
    const bucket = `${this.namespace || 'trawler'}_payloads`;
    this.payloads ??= this.connection.jetstream().views.os(bucket, { ttl: nanos(PAYLOAD_TTL_MS), storage: StorageType.File });
    return this.payloads;
  }

  private async answer(msg: Msg, handler: RequestHandler, chunkSize: number, responderId: string): Promise<void> {
    // Only a request still running after acceptWithinMs is acknowledged (ACCEPT_WITHIN_MS says why).
    const acceptance = setTimeout(() => acknowledge(msg, responderId), this.acceptWithinMs);
    let reply: Uint8Array;
    try {
      // A request without headers travels whole in its message: no object-store read to wait for.
      reply = await handler(msg.headers ? await this.incoming(msg) : msg.data);
    } catch (error) {
      clearTimeout(acceptance);
      respondFailure(msg, error instanceof Error ? error.message.slice(0, 200) : 'handler failed');
      return;
    }
    clearTimeout(acceptance);
    if (reply.length > this.maxReplyBytes) {
      respondFailure(msg, `${TOO_LARGE_FAILURE} ${reply.length} bytes, over the ${this.maxReplyBytes}-byte budget`);
      return;
    }
    for (let offset = 0; offset < reply.length; offset += chunkSize) {
      const chunk = reply.subarray(offset, offset + chunkSize);
      const last = offset + chunkSize >= reply.length;
      if (offset > 0 && !last) {
        msg.respond(chunk);
        continue;
      }
      // `append` on fresh headers: `set` first looks for the name to replace, twice.
      const framing = natsHeaders();
      if (offset === 0) framing.append(LENGTH_HEADER, String(reply.length));
      if (last) framing.append(FINAL_HEADER, '1');
      msg.respond(chunk, { headers: framing });
    }
    // Requesters of earlier versions end a reply here, not at the final mark.
    msg.respond(new Uint8Array(0));
  }
}

function respondFailure(msg: Msg, message: string): void {
  const failure = natsHeaders();
  failure.set(FAILURE_HEADER, message);
  msg.respond(new Uint8Array([0x7b, 0x7d]), { headers: failure });
  msg.respond(new Uint8Array(0));
}

function acknowledge(msg: Msg, responderId: string): void {
  const accepted = natsHeaders();
  accepted.set(ACCEPTED_HEADER, responderId);
  try {
    msg.respond(ACK_PAYLOAD, { headers: accepted });
  } catch {
    // The connection closed meanwhile: the requester learns it from the transport.
  }
}
