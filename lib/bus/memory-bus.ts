import { isDeepStrictEqual } from 'node:util';
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
import { MAX_REPLY_BYTES, TOO_LARGE_FAILURE } from './nats-reply-protocol.js';
import { estimateJsonBytes } from './reply-size.js';

/** A member's handler; it gets bytes (serve) or a value (serveJson), as its requester sends. */
type Deliver = (message: unknown) => Promise<unknown>;

interface QueueMember {
  group: string;
  responderId: string;
  deliver: Deliver;
  active: boolean;
  running: Set<Promise<unknown>>;
}

export interface MemoryBusOptions {
  /**
   * Check every JSON message as a NATS peer would receive it (encoded, decoded, schema-checked, and
   * equal to the value handed over) and freeze it, so a mutation throws. For tests; off, values cross
   * unchecked (docs/platform.md, "The in-process bus").
   */
  checkMessages?: boolean;
  /**
   * The largest reply a requester takes (MAX_REPLY_BYTES, as on NATS): one over it is refused with
   * BusError 'too_large', its size estimated without serialising (lib/bus/reply-size.ts).
   */
  maxReplyBytes?: number;
}

/** The value with its undefined properties dropped, as JSON drops them; anything else left as it is. */
function withoutUndefined(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutUndefined);
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype) return value;
  return Object.fromEntries(Object.entries(value).filter(([, inner]) => inner !== undefined).map(([key, inner]) => [key, withoutUndefined(inner)]));
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value) || ArrayBuffer.isView(value)) return value;
  for (const inner of Object.values(value)) deepFreeze(inner);
  return Object.freeze(value);
}

/** The embedded transport: same semantics as NATS request/reply with queue groups, in one process. */
export class MemoryBus implements Bus {
  readonly transport = 'memory' as const;
  private readonly members = new Map<string, QueueMember[]>();
  private readonly listeners = new Map<string, Set<MessageHandler>>();
  private readonly cursor = new Map<string, number>();
  private closed = false;
  private readonly checkMessages: boolean;
  private readonly maxReplyBytes: number;

  constructor(options: MemoryBusOptions = {}) {
    this.checkMessages = options.checkMessages ?? false;
    this.maxReplyBytes = options.maxReplyBytes ?? MAX_REPLY_BYTES;
  }

  async request(subject: string, payload: Uint8Array, options: RequestOptions): Promise<Uint8Array> {
    return (await this.send(subject, payload.slice(), options)) as Uint8Array;
  }

  async requestJson<T>(subject: string, value: unknown, reply: z.ZodType<T>, options: RequestOptions): Promise<Decoded<T>> {
    return this.received(reply, await this.send(subject, this.checkMessages ? deepFreeze(value) : value, options));
  }

  serve(subject: string, group: string, handler: RequestHandler, responderId: string): BusSubscription {
    return this.join(subject, group, (payload) => handler(payload as Uint8Array), responderId);
  }

  serveJson<T>(subject: string, group: string, request: z.ZodType<T>, handler: JsonHandler<T>, responderId: string): BusSubscription {
    return this.join(subject, group, async (value) => handler(this.received(request, value)), responderId);
  }

  /** The value a JSON handler or requester gets: itself, or when checking, what NATS would deliver. */
  private received<T>(schema: z.ZodType<T>, value: unknown): Decoded<T> {
    if (!this.checkMessages) return { ok: true, value: value as T };
    const decoded = decodeWith(schema, encodeJson(value));
    if (decoded.ok && !isDeepStrictEqual(decoded.value, withoutUndefined(value))) {
      throw new Error('A message handed over in-process differs from what its schema makes of its JSON');
    }
    return decoded.ok ? { ok: true, value: deepFreeze(value) as T } : decoded;
  }

  private async send(subject: string, message: unknown, options: RequestOptions): Promise<unknown> {
    if (this.closed) throw new BusError('closed', 'bus closed');
    const member = this.pick(subject);
    if (!member) throw new BusError('no_responders', `no responders on ${subject}`);
    options.onAccepted?.(member.responderId);
    const work = member.deliver(message);
    member.running.add(work);
    void work.finally(() => member.running.delete(work)).catch(() => undefined);
    return this.withinBudget(subject, await withTimeout(work, options));
  }

  /** The NATS path's reply budget and error, the size estimated rather than encoded. */
  private withinBudget(subject: string, reply: unknown): unknown {
    const size = estimateJsonBytes(reply, this.maxReplyBytes);
    if (size > this.maxReplyBytes) {
      throw new BusError('too_large', `${TOO_LARGE_FAILURE} reply on ${subject} is at least ${size} bytes, over the ${this.maxReplyBytes}-byte budget`);
    }
    return reply;
  }

  private join(subject: string, group: string, deliver: Deliver, responderId: string): BusSubscription {
    const member: QueueMember = { group, responderId, deliver, active: true, running: new Set() };
    const list = this.members.get(subject) ?? [];
    list.push(member);
    this.members.set(subject, list);
    return {
      drain: async () => {
        member.active = false;
        this.members.set(subject, (this.members.get(subject) ?? []).filter((m) => m !== member));
        await Promise.allSettled([...member.running]);
      },
    };
  }

  publish(subject: string, payload: Uint8Array): void {
    if (this.closed) return;
    for (const listener of this.listeners.get(subject) ?? []) {
      queueMicrotask(() => listener(payload.slice()));
    }
  }

  subscribe(subject: string, handler: MessageHandler): BusSubscription {
    const set = this.listeners.get(subject) ?? new Set<MessageHandler>();
    set.add(handler);
    this.listeners.set(subject, set);
    return { drain: async () => void set.delete(handler) };
  }

  async ping(): Promise<void> {
    if (this.closed) throw new BusError('closed', 'bus closed');
  }

  async close(): Promise<void> {
    this.closed = true;
    this.members.clear();
    this.listeners.clear();
  }

  private pick(subject: string): QueueMember | undefined {
    const active = (this.members.get(subject) ?? []).filter((m) => m.active);
    if (active.length === 0) return undefined;
    const next = (this.cursor.get(subject) ?? 0) % active.length;
    this.cursor.set(subject, next + 1);
    return active[next];
  }
}

function withTimeout<T>(work: Promise<T>, options: RequestOptions): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => finish(() => reject(new BusError('timeout', 'request aborted')));
    const timer = setTimeout(() => finish(() => reject(new BusError('timeout', 'request timed out'))), options.timeoutMs);
    let done = false;
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted) onAbort();
    function finish(settle: () => void) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      settle();
    }
    work.then(
      (value) => finish(() => resolve(value)),
      (error: unknown) => finish(() => reject(error)),
    );
  });
}
