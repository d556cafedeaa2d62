import { errors, util, type Dispatcher } from 'undici';
import type { HttpMethod } from '../../lib/scrape/vocabulary.js';
import type { JobSignal } from '../cancellation.js';
import { addHeader, BoundedBody } from './hop.js';

export interface ExchangeRequest {
  url: URL;
  method: HttpMethod;
  headers: Record<string, string> | string[];
  signal: JobSignal;
  /** undici's headers and body timeouts. */
  timeoutMs: number;
  maxBodyBytes: number;
}

/** A response whose body is still arriving: collected as it comes, bounded by `maxBodyBytes`. */
export interface ExchangeResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (as `headersToRecord`). */
  headers: Record<string, string>;
  /** The wire body once complete; rejects with undici's error, the size ceiling or the signal's reason. */
  body(): Promise<Buffer>;
  /** Drops the body: an unfinished transfer is aborted (its connection closed), as destroying request()'s body does. */
  discard(): void;
}

type Waiter = { resolve(body: Buffer): void; reject(error: unknown): void };

/**
 * One request through an undici dispatcher with a handler of its own. undici's `request()` does the
 * same exchange through a Readable body, an abort listener and an async resource per request, which
 * cost a plain fetch about as much CPU as the exchange itself. Failures are the ones `request()` gives:
 * undici's errors, the signal's reason once it aborts.
 */
export function exchange(dispatcher: Dispatcher, request: ExchangeRequest): Promise<ExchangeResponse> {
  return new Promise((resolve, reject) => {
    const handler = new Exchange(request, resolve, reject);
    if (request.signal.aborted) {
      reject(request.signal.reason);
      return;
    }
    request.signal.addEventListener('abort', handler.onAbort, { once: true });
    dispatcher.dispatch(
      {
        origin: request.url.origin,
        path: `${request.url.pathname}${request.url.search}`,
        method: request.method,
        headers: request.headers,
        headersTimeout: request.timeoutMs,
        bodyTimeout: request.timeoutMs,
      },
      handler,
    );
  });
}

/** undici's handler for one exchange (the callbacks `request()` implements too). */
class Exchange implements Dispatcher.DispatchHandler {
  private abortTransfer: ((reason: Error) => void) | null = null;
  private aborted: Error | null = null;
  private body: BoundedBody | null = null;
  private outcome: { body: Buffer } | { error: unknown } | null = null;
  private waiter: Waiter | null = null;
  private headersSeen = false;

  constructor(
    private readonly request: ExchangeRequest,
    private readonly resolveHead: (response: ExchangeResponse) => void,
    private readonly rejectHead: (error: unknown) => void,
  ) {}

  readonly onAbort = (): void => {
    const reason = (this.request.signal.reason as Error | undefined) ?? new errors.RequestAbortedError();
    this.aborted = reason;
    this.abortTransfer?.(reason);
  };

  onConnect(abort: (reason?: Error) => void): void {
    if (this.aborted) abort(this.aborted);
    else this.abortTransfer = abort;
  }

  onHeaders(statusCode: number, rawHeaders: Buffer[]): boolean {
    // 1xx answers are interim: the response follows.
    if (statusCode < 200) return true;
    this.headersSeen = true;
    this.body = new BoundedBody(this.request.maxBodyBytes, statusCode, () => undefined);
    this.resolveHead({
      status: statusCode,
      headers: rawHeadersToRecord(rawHeaders),
      body: () => this.awaitBody(),
      discard: () => this.discard(),
    });
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.outcome) return true;
    try {
      this.body?.add(chunk);
    } catch (tooLarge) {
      this.settle({ error: tooLarge });
      this.abortTransfer?.(tooLarge as Error);
    }
    return true;
  }

  onComplete(): void {
    this.settle({ body: this.body?.bytes() ?? Buffer.alloc(0) });
  }

  onError(error: Error): void {
    if (this.headersSeen) this.settle({ error });
    else {
      this.request.signal.removeEventListener('abort', this.onAbort);
      this.rejectHead(error);
    }
  }

  private settle(outcome: { body: Buffer } | { error: unknown }): void {
    if (this.outcome) return;
    this.outcome = outcome;
    this.request.signal.removeEventListener('abort', this.onAbort);
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) deliver(outcome, waiter);
  }

  private awaitBody(): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      if (this.outcome) deliver(this.outcome, { resolve, reject });
      else this.waiter = { resolve, reject };
    });
  }

  private discard(): void {
    if (this.outcome) return;
    const reason = new errors.RequestAbortedError();
    this.settle({ error: reason });
    this.abortTransfer?.(reason);
  }
}

function deliver(outcome: { body: Buffer } | { error: unknown }, waiter: Waiter): void {
  if ('body' in outcome) waiter.resolve(outcome.body);
  else waiter.reject(outcome.error);
}

/** undici's raw response headers, read as undici's own parser reads them (latin1), into a record as `headersToRecord` makes one. */
function rawHeadersToRecord(raw: Buffer[]): Record<string, string> {
  const record: Record<string, string> = {};
  for (let i = 0; i < raw.length; i += 2) addHeader(record, util.headerNameToString(raw[i]), raw[i + 1].toString('latin1'));
  return record;
}
