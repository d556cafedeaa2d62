import { createInbox, type Msg, type NatsConnection, type Subscription } from 'nats';
import { BusError, type RequestOptions } from './bus.js';
import { ACCEPTED_HEADER, FAILURE_HEADER, FINAL_HEADER, LENGTH_HEADER, NO_RESPONDERS_STATUS, TOO_LARGE_FAILURE, concat, toBusError } from './nats-reply-protocol.js';

interface Pending {
  subject: string;
  chunks: Uint8Array[];
  received: number;
  expected: number | null;
  onAccepted?: (responderId: string) => void;
  resolve: (reply: Uint8Array) => void;
  reject: (error: BusError) => void;
  timer: NodeJS.Timeout;
  release: () => void;
}

/**
 * One wildcard reply subject per connection (`_INBOX.<id>.*`) and a map of the requests waiting on it
 * (docs/platform.md, "Bus protocol"): a request costs a map entry and a timer, not an iterator with its
 * own queue, timer and captured stack as nats.js's `requestMany` does. A reply marked final completes
 * its request at once; a responder of an earlier version marks none, and its empty sentinel message
 * completes the request instead. A sentinel after a final reply finds no entry and is dropped.
 */
export class ReplyInbox {
  private readonly prefix = `${createInbox()}.`;
  private readonly pending = new Map<string, Pending>();
  private subscription: Subscription | null = null;
  private nextToken = 0;

  constructor(
    private readonly connection: NatsConnection,
    private readonly maxReplyBytes: number,
  ) {}

  /** Sends one request through `publish` (given the reply subject) and resolves with the whole reply. */
  request(subject: string, publish: (replySubject: string) => void, options: RequestOptions): Promise<Uint8Array> {
    if (options.signal?.aborted) return Promise.reject(new BusError('timeout', 'request aborted'));
    this.subscribe();
    const token = (this.nextToken++).toString(36);
    const reply = new Promise<Uint8Array>((resolve, reject) => {
      const onAbort = () => this.finish(token, new BusError('timeout', 'request aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(token, {
        subject,
        chunks: [],
        received: 0,
        expected: null,
        onAccepted: options.onAccepted,
        resolve,
        reject,
        timer: setTimeout(() => this.finish(token, new BusError('timeout', `no complete reply on ${subject} within ${options.timeoutMs} ms`)), options.timeoutMs),
        release: () => options.signal?.removeEventListener('abort', onAbort),
      });
    });
    try {
      publish(this.prefix + token);
    } catch (error) {
      this.finish(token, toBusError(error, subject));
    }
    return reply;
  }

  /** Fails every waiting request: the connection is going away. */
  close(): void {
    for (const token of [...this.pending.keys()]) this.finish(token, new BusError('closed', 'bus closed'));
  }

  private subscribe(): void {
    if (this.subscription && !this.subscription.isClosed()) return;
    const subscription = this.connection.subscribe(`${this.prefix}*`, { callback: (error, msg) => error ? undefined : this.receive(msg) });
    this.subscription = subscription;
    void subscription.closed.then(() => {
      if (this.subscription === subscription) this.close();
    });
  }

  private receive(msg: Msg): void {
    const token = msg.subject.slice(this.prefix.length);
    const pending = this.pending.get(token);
    // A sentinel after a final reply, or a message for a request that already timed out.
    if (!pending) return;
    const headers = msg.headers;
    if (msg.data.length === 0) {
      if (headers?.code === NO_RESPONDERS_STATUS) this.finish(token, new BusError('no_responders', `no responders on ${pending.subject}`));
      else this.finish(token, null);
      return;
    }
    const accepted = headers?.get(ACCEPTED_HEADER);
    if (accepted) {
      pending.onAccepted?.(accepted);
      return;
    }
    const failure = headers?.get(FAILURE_HEADER);
    if (failure) {
      this.finish(token, new BusError(failure.startsWith(TOO_LARGE_FAILURE) ? 'too_large' : 'incomplete', `responder failed: ${failure}`));
      return;
    }
    const length = headers?.get(LENGTH_HEADER);
    if (length) pending.expected = Number(length);
    pending.received += msg.data.length;
    const size = Math.max(pending.expected ?? 0, pending.received);
    if (size > this.maxReplyBytes) {
      this.finish(token, new BusError('too_large', `reply on ${pending.subject} is ${size} bytes, over the ${this.maxReplyBytes}-byte budget`));
      return;
    }
    pending.chunks.push(msg.data);
    if (headers?.get(FINAL_HEADER)) this.finish(token, null);
  }

  /** Ends a request once: with its reply (null error) or with the error. */
  private finish(token: string, error: BusError | null): void {
    const pending = this.pending.get(token);
    if (!pending) return;
    this.pending.delete(token);
    clearTimeout(pending.timer);
    pending.release();
    if (error) {
      pending.reject(error);
      return;
    }
    const whole = concat(pending.chunks);
    if (pending.expected !== null && whole.length !== pending.expected) {
      pending.reject(new BusError('incomplete', `reply on ${pending.subject} arrived with ${whole.length} of ${pending.expected} bytes`));
      return;
    }
    pending.resolve(whole);
  }
}
