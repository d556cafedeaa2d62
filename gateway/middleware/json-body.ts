import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { decodeJsonInput } from '../../lib/validation/json-input.js';

export const MAX_BODY_BYTES = 1_048_576;

/**
 * Reads the body and decodes it as JSON (cross-cutting rules 2-3). `required`: an absent body is an
 * error; otherwise it becomes `undefined`. Any other Content-Type than application/json is refused.
 * Nesting depth, prototype keys and text the store cannot hold are refused here, for every route.
 */
export function jsonBody(options: { required: boolean; maxBytes?: number }) {
  const maxBytes = options.maxBytes ?? MAX_BODY_BYTES;
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const raw = await readBody(req, maxBytes);
      res.locals.bytesIn = raw.length;
      if (raw.length === 0) {
        if (options.required) throw new ServiceError('ERR::REQUEST::INVALID', 'Request body is empty; send a JSON object');
        res.locals.body = undefined;
        return next();
      }
      const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
      if (type !== 'application/json') {
        throw new ServiceError('ERR::REQUEST::INVALID', `Content-Type must be application/json, got ${type || 'none'}`);
      }
      res.locals.body = decodeJsonInput(raw.toString('utf8'));
      next();
    } catch (error) {
      next(error);
    }
  };
}

async function readBody(req: Request, maxBytes: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > maxBytes) {
    req.resume();
    throw new ServiceError('ERR::REQUEST::PAYLOAD_TOO_LARGE', `Request body is over ${maxBytes} bytes`);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of req) {
    const buffer = chunk as Buffer;
    total += buffer.length;
    if (total > maxBytes) {
      req.resume();
      throw new ServiceError('ERR::REQUEST::PAYLOAD_TOO_LARGE', `Request body is over ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}
