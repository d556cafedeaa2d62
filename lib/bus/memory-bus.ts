import { BusError, type Bus, type BusSubscription, type MessageHandler, type RequestHandler, type RequestOptions } from './bus.js';

interface QueueMember {
  group: string;
  responderId: string;
  handler: RequestHandler;
  active: boolean;
  running: Set<Promise<unknown>>;
}

/** The embedded transport: same semantics as NATS request/reply with queue groups, in one process. */
export class MemoryBus implements Bus {
  readonly transport = 'memory' as const;
  private readonly members = new Map<string, QueueMember[]>();
  private readonly listeners = new Map<string, Set<MessageHandler>>();
  private readonly cursor = new Map<string, number>();
  private closed = false;

  async request(subject: string, payload: Uint8Array, options: RequestOptions): Promise<Uint8Array> {
    if (this.closed) throw new BusError('closed', 'bus closed');
    const member = this.pick(subject);
    if (!member) throw new BusError('no_responders', `no responders on ${subject}`);
    options.onAccepted?.(member.responderId);
    const work = member.handler(payload.slice());
    member.running.add(work);
    void work.finally(() => member.running.delete(work)).catch(() => undefined);
    return withTimeout(work, options);
  }

  serve(subject: string, group: string, handler: RequestHandler, responderId: string): BusSubscription {
    const member: QueueMember = { group, responderId, handler, active: true, running: new Set() };
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
