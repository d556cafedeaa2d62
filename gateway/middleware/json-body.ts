import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { decodeJsonInput } from '../../lib/validation/json-input.js';

export const MAX_BODY_BYTES = 1_048_576;

/**
 * Reads the body and decodes it as JSON (cross-cutting rules 2-3). `required`: an absent body is an
 * error; otherwise it becomes `undefined`. Any other Content-Type than application/json is refused.
 * Nesting depth, prototype keys and text the store cannot hold are refused here, for every route.
 */
export function jsonBody(options: JsonBodyOptions) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      res.locals.body = await readJsonBody(req, res, options);
      next();
    } catch (error) {
      next(error);
    }
  };
}

export interface JsonBodyOptions {
  required: boolean;
  maxBytes?: number;
}

/** The request's JSON body as `jsonBody` decodes it (undefined when an optional body is absent); sets bytesIn. */
export async function readJsonBody(req: Request, res: Response, options: JsonBodyOptions): Promise<unknown> {
  const raw = await readBody(req, options.maxBytes ?? MAX_BODY_BYTES);
  res.locals.bytesIn = raw.length;
  if (raw.length === 0) {
    if (options.required) throw new ServiceError('ERR::REQUEST::INVALID', 'Request body is empty; send a JSON object');
    return undefined;
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type !== 'application/json') {
    throw new ServiceError('ERR::REQUEST::INVALID', `Content-Type must be application/json, got ${type || 'none'}`);
  }
  return decodeJsonInput(raw.toString('utf8'));
}

async function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    req.resume();
    throw tooLarge(req, maxBytes);
  }
  const received = receivedWhole(req, maxBytes);
  if (received) return received;
  return readStreamed(req, maxBytes);
}

/**
 * Reads the body as it arrives. Past `maxBytes` the rest is left flowing and discarded, not the
 * request destroyed: a destroyed request stops reading its socket, and a client still sending the
 * rest would then never see the 413 (gateway/lingering-close.ts).
 */
function readStreamed(req: Request, maxBytes: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total <= maxBytes) return void chunks.push(chunk);
      stop();
      req.resume();
      reject(tooLarge(req, maxBytes));
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onError = (error: Error) => {
      stop();
      reject(error);
    };
    const onClose = () => onError(new Error('the request closed before its body ended'));
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onError);
    req.once('close', onClose);
  });
}

/**
 * The body when all of it has arrived already and it is within the limit: taken from the stream's
 * buffer at once, without the async iterator's listeners and promises (the body read fell from 2.5%
 * to 1.3% of the embedded main thread's profile; docs/platform.md, "Performance"). Whole means the
 * parser has seen the message end, or holds the declared Content-Length's bytes (it signals the end
 * just after the last body bytes, and a listener can run in between). Null otherwise, and the body
 * is read as it arrives. The stream is then left flowing, so it ends and is destroyed as the
 * iterator would have left it.
 */
function receivedWhole(req: Request, maxBytes: number): Buffer | null {
  if (req.destroyed || req.readableFlowing || req.readableLength > maxBytes) return null;
  const declared = req.headers['content-length'];
  const whole = req.complete || (declared !== undefined && req.headers['transfer-encoding'] === undefined && req.readableLength === Number(declared));
  if (!whole) return null;
  const buffered = req.read() as Buffer | null;
  if (!req.readableEnded) req.resume();
  return buffered ?? Buffer.alloc(0);
}

/** The way past the bound for a batch: several calls to one open job (what `trawler batch run` does). */
export const BATCH_SPLIT_HINT =
  'split it: create the job with "open": true, add the rest with POST /v1/batch/{id}/items (at most 10,000 items per call), then POST /v1/batch/{id}/close; `trawler batch run FILE` does this for you';

function tooLarge(req: Request, maxBytes: number): ServiceError {
  const batch = req.originalUrl.startsWith('/v1/batch');
  return new ServiceError('ERR::REQUEST::PAYLOAD_TOO_LARGE', `Request body is over ${maxBytes} bytes${batch ? `; ${BATCH_SPLIT_HINT}` : ''}`);
}
