import { ErrorCode, type NatsError } from 'nats';
import { BusError } from './bus.js';

/**
 * Headers of the NATS request/reply protocol between gateways and workers (docs/platform.md, "Bus
 * protocol"). A reply is: an acceptance naming the responder (only when the request is still being
 * worked on ACCEPT_WITHIN_MS after it arrived), the reply's chunks (the first carrying the total
 * length, the last marked final), then an empty sentinel message.
 */
export const LENGTH_HEADER = 'Trawler-Length';
export const FAILURE_HEADER = 'Trawler-Failure';
export const ACCEPTED_HEADER = 'Trawler-Accepted';
/**
 * A responder still working on a request this long after it arrived sends its acceptance; one that
 * answers sooner sends none (most fetch jobs: the message woke the NATS server and the requester for
 * nothing, about 15% of a distributed scrape's CPU). A requester that has neither an acceptance nor a
 * reply once this and the responders' membership expiry have passed may take the request as lost.
 */
export const ACCEPT_WITHIN_MS = 1000;
/**
 * On a reply's last chunk: the requester may stop there. Responders keep sending the sentinel after
 * it, which is all a requester of an earlier version waits for.
 */
export const FINAL_HEADER = 'Trawler-Final';
/**
 * The most a reply may carry (docs/platform.md, "Bus protocol"): a responder refuses to send a larger
 * one (a failure naming its size instead), and a requester stops reading one that announces or
 * reaches more, so no gateway ever buffers an unbounded worker reply.
 */
export const MAX_REPLY_BYTES = 64 * 1024 * 1024;
/** Starts the failure message of a reply refused for its size; requesters read it as BusError 'too_large'. */
export const TOO_LARGE_FAILURE = 'reply too large:';
/** The status NATS itself sends to the reply subject when nobody serves the request's subject. */
export const NO_RESPONDERS_STATUS = 503;

export function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0];
  const total = chunks.reduce((sum, c) => sum + c.length, 0);
  const whole = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.length;
  }
  return whole;
}

/** A nats.js error as the bus's own kinds. */
export function toBusError(error: unknown, subject: string): BusError {
  if (error instanceof BusError) return error;
  const code = (error as NatsError | undefined)?.code;
  if (code === ErrorCode.NoResponders) return new BusError('no_responders', `no responders on ${subject}`);
  if (code === ErrorCode.Timeout) return new BusError('timeout', `request on ${subject} timed out`);
  if (code === ErrorCode.ConnectionClosed) return new BusError('closed', 'bus closed');
  // The connection to the server is down (the client is reconnecting): the bus is out of reach, not the worker.
  if (code === ErrorCode.Disconnect || code === ErrorCode.ConnectionRefused || code === ErrorCode.ConnectionTimeout || code === ErrorCode.ConnectionDraining) {
    return new BusError('closed', `bus not connected (${code})`);
  }
  return new BusError('incomplete', error instanceof Error ? error.message : String(error));
}
