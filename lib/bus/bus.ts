import type { z } from 'zod';

/**
 * One bus interface, two transports (DESIGN.md decision 2): NATS in distributed mode, an in-process
 * transport in the embedded default. Payloads are bytes; callers encode with the protocol schemas.
 */
export type BusErrorKind = 'no_responders' | 'timeout' | 'closed' | 'incomplete' | 'too_large';

export class BusError extends Error {
  override name = 'BusError';
  constructor(
    readonly kind: BusErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestOptions {
  timeoutMs: number;
  /** Ends the request with a BusError 'timeout' once aborted. */
  signal?: RequestSignal;
  /** Called once a responder has taken the request, with the responder id it serves under. */
  onAccepted?: (responderId: string) => void;
}

/**
 * What a bus uses of an AbortSignal. An AbortSignal is one; so is a lighter object with a single
 * listener and no EventTarget, for a caller that watches every request (gateway/scrape/dispatch.ts).
 */
export interface RequestSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export type RequestHandler = (payload: Uint8Array) => Promise<Uint8Array>;

/** A message checked against its schema; a peer of another version may send one that fails. */
export type Decoded<T> = { ok: true; value: T } | { ok: false; issues: unknown[] };
/** Answers one JSON request with a JSON-serialisable value. */
export type JsonHandler<T> = (message: Decoded<T>) => Promise<unknown>;
export type MessageHandler = (payload: Uint8Array) => void;

export interface BusSubscription {
  /** Stop receiving new messages; resolves once handlers already running have finished. */
  drain(): Promise<void>;
}

export interface Bus {
  readonly transport: 'nats' | 'memory';
  /** Request/reply to one member of the subject's queue group. Rejects with BusError. */
  request(subject: string, payload: Uint8Array, options: RequestOptions): Promise<Uint8Array>;
  /** Answer requests on a subject as one member of a queue group. */
  serve(subject: string, queueGroup: string, handler: RequestHandler, responderId: string): BusSubscription;
  /**
   * Request/reply of JSON values, the reply checked against `reply`. NATS sends JSON and both sides
   * check it; in-process the value itself is handed over (docs/platform.md, "The in-process bus").
   */
  requestJson<T>(subject: string, value: unknown, reply: z.ZodType<T>, options: RequestOptions): Promise<Decoded<T>>;
  serveJson<T>(subject: string, queueGroup: string, request: z.ZodType<T>, handler: JsonHandler<T>, responderId: string): BusSubscription;
  publish(subject: string, payload: Uint8Array): void;
  subscribe(subject: string, handler: MessageHandler): BusSubscription;
  /** Round trip to the transport, for readiness. Rejects when unreachable. */
  ping(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

export function decodeJson(payload: Uint8Array): unknown {
  return JSON.parse(decoder.decode(payload));
}

/** A received payload checked against its schema. */
export function decodeWith<T>(schema: z.ZodType<T>, payload: Uint8Array): Decoded<T> {
  const parsed = schema.safeParse(decodeJson(payload));
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, issues: parsed.error.issues };
}
