import WebSocket, { type RawData } from 'ws';
import { controlFrame, isControlFrame, readControl, type WireCookie } from '../../lib/protocol/index.js';

/** Why a relayed connection ended, and the close code its client sees (docs/remote-browser.md "Ends"). */
export const RELAY_CLOSE = {
  client: { code: 1000, reason: 'client' },
  ttl: { code: 4000, reason: 'ttl' },
  idle: { code: 4001, reason: 'idle' },
  browser: { code: 1011, reason: 'browser' },
  worker: { code: 1011, reason: 'worker' },
  shutdown: { code: 1001, reason: 'shutdown' },
} as const;
export type RelayEnd = keyof typeof RELAY_CLOSE;

/** The worker's close codes (worker/browser/remote/remote-session.ts) as end reasons; anything else means the worker went. */
const WORKER_CODES: Record<number, RelayEnd> = { 1000: 'client', 4000: 'ttl', 4001: 'idle', 1011: 'browser', 1001: 'worker' };

export interface RelayOutcome {
  reason: RelayEnd;
  durationMs: number;
  /** The context's cookies the worker sent back before closing, when asked to (a session connection). */
  cookies: WireCookie[] | null;
  /** The localStorage per origin sent with them, or null (not sent: the session keeps its own). */
  localStorage: Record<string, Record<string, string>> | null;
}

export interface RelayOptions {
  /** The gateway's own bound on the connection: the worker ends it at the TTL; this ends it if the worker does not. */
  backstopMs: number;
  now: () => number;
  /** Called once with the outcome; returns the final text frame to send the client before its close, if any. */
  settle(outcome: RelayOutcome): Promise<string | null>;
}

/** How long the gateway waits for the worker's own close (with the session's cookies) after its client went. */
const WORKER_CLOSE_WAIT_MS = 5_000;

/**
 * Pipes a client's WebSocket and the worker's relay socket frame for frame, and ends both exactly once,
 * whichever side goes first. Control frames from the worker (CONTROL_PREFIX) are kept from the client.
 */
export class BrowserRelay {
  private readonly started: number;
  private ending: Promise<void> | null = null;
  private cookies: WireCookie[] | null = null;
  private localStorage: Record<string, Record<string, string>> | null = null;
  /** Why the gateway asked the worker to end, when it did: the worker's close then ends it for that reason. */
  private asked: RelayEnd | null = null;
  private readonly backstop: NodeJS.Timeout;

  constructor(
    private readonly client: WebSocket,
    private readonly worker: WebSocket,
    private readonly options: RelayOptions,
  ) {
    this.started = options.now();
    this.backstop = setTimeout(() => void this.end('ttl'), options.backstopMs);
    client.on('message', (data: RawData, isBinary: boolean) => {
      if (worker.readyState === WebSocket.OPEN) worker.send(data, { binary: isBinary });
    });
    worker.on('message', (data: RawData, isBinary: boolean) => {
      if (!isBinary && isControlFrame(data)) return this.onControl(data);
      if (client.readyState === WebSocket.OPEN) client.send(data, { binary: isBinary });
    });
    client.once('close', () => void this.clientGone());
    client.on('error', () => void this.clientGone());
    worker.once('close', (code: number) => void this.end(this.asked ?? WORKER_CODES[code] ?? 'worker'));
    worker.on('error', () => undefined);
  }

  /** Ends the connection from the gateway's side (shutdown): the worker still sends the cookies back first. */
  shutdown(): Promise<void> {
    return this.askWorkerToEnd('shutdown');
  }

  private clientGone(): Promise<void> {
    return this.askWorkerToEnd('client');
  }

  private async askWorkerToEnd(reason: RelayEnd): Promise<void> {
    if (this.ending) return this.ending;
    if (this.worker.readyState !== WebSocket.OPEN) return this.end(reason);
    this.asked ??= reason;
    const closed = new Promise<void>((resolve) => {
      this.worker.once('close', () => resolve());
      setTimeout(resolve, WORKER_CLOSE_WAIT_MS).unref();
    });
    this.worker.send(controlFrame({ end: 'client' }));
    await closed;
    return this.end(reason);
  }

  private onControl(data: RawData): void {
    const control = readControl(data);
    if (control && 'cookies' in control) {
      this.cookies = control.cookies;
      this.localStorage = control.local_storage ?? null;
    }
  }

  private end(reason: RelayEnd): Promise<void> {
    this.ending ??= (async () => {
      clearTimeout(this.backstop);
      const durationMs = this.options.now() - this.started;
      if (this.worker.readyState !== WebSocket.CLOSED) this.worker.terminate();
      const finalFrame = await this.options.settle({ reason, durationMs, cookies: this.cookies, localStorage: this.localStorage }).catch(() => null);
      if (this.client.readyState === WebSocket.OPEN) {
        if (finalFrame !== null) this.client.send(finalFrame);
        const close = RELAY_CLOSE[reason];
        this.client.close(close.code, close.reason);
      }
    })();
    return this.ending;
  }
}
