import type { Socket } from 'node:net';
import type { HttpMethod } from '../../lib/scrape/vocabulary.js';
import type { JobSignal } from '../cancellation.js';
import { tooLarge } from './body.js';

/** One HTTP exchange with the target, through the egress guard, no redirect following. */
export interface HopRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  /**
   * The guard lease: where to send traffic and how to authenticate. `reusable` leases keep their
   * credentials across requests, so a client made for them is kept with its connections.
   */
  proxy: {
    url: string;
    socksUrl: string | null;
    server: string;
    username: string;
    password: string;
    reusable: boolean;
    /** The lease's checked dial, for clients that connect from this process (docs/ssrf.md, "In-process connections"). */
    open(target: URL): Promise<Socket>;
  };
  signal: JobSignal;
  timeoutMs: number;
  maxBodyBytes: number;
}

/**
 * Direct plain-HTTP traffic: a reusable lease is direct (no caller proxy), and plain HTTP has no TLS
 * to present, so undici connects to it in this process through the lease's checked dial.
 */
export function isDirectPlainHttp(request: HopRequest): boolean {
  return request.proxy.reusable && request.url.startsWith('http:');
}

export interface HopResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body with Content-Encoding undone, bounded by maxBodyBytes. */
  read(): Promise<Buffer>;
  /** Drops the body unread (redirects). */
  discard(): Promise<void>;
}

/** Clients kept for reusable guard leases, per client kind: above the guard's kept leases (32). */
export const MAX_KEPT_CLIENTS = 64;

export interface HttpClient {
  send(request: HopRequest): Promise<HopResponse>;
}

/**
 * A body's chunks collected up to `maxBytes`: `add` fails (after `onTooLarge`, which stops the
 * transfer) as soon as they pass it. Chunks are kept as they came, not copied.
 */
export class BoundedBody {
  private readonly chunks: Buffer[] = [];
  private total = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly status: number,
    private readonly onTooLarge: () => void,
  ) {}

  add(chunk: Uint8Array): void {
    this.total += chunk.length;
    if (this.total > this.maxBytes) {
      this.onTooLarge();
      throw tooLarge(this.maxBytes, this.status);
    }
    this.chunks.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
  }

  bytes(): Buffer {
    return this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks, this.total);
  }
}

export function headersToRecord(entries: Iterable<[string, string]>): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of entries) addHeader(record, name, value);
  return record;
}

/** One header into a record of lower-case names; a repeated one is joined with ", ". */
export function addHeader(record: Record<string, string>, name: string, value: string): void {
  const key = name.toLowerCase();
  record[key] = key in record ? `${record[key]}, ${value}` : value;
}
