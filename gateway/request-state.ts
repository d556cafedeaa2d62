import type { ErrorCode } from '../lib/errors/index.js';
import type { Logger } from '../lib/log.js';
import type { RequestLogEntry } from '../lib/store/request-log-entry.js';
import type { Principal } from './auth/key-resolver.js';

/**
 * What the gateway keeps per request in `res.locals`, declared once for every handler (Express's
 * declaration merging). Who sets each member is named beside it.
 */
declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Locals {
      /** middleware/request-id.ts, first of all: the ULID sent as X-Request-Id. */
      requestId: string;
      /** middleware/request-id.ts: epoch milliseconds the request arrived. */
      receivedAt: number;
      /** middleware/request-id.ts: the process logger bound to this request id. */
      logger: Logger;
      /** middleware/auth.ts, on /v1 only: the key's organization, project and scopes. */
      principal?: Principal;
      /** middleware/json-body.ts (scrape/admission.ts for scrapes): the decoded JSON body (undefined when an optional body is absent). */
      body?: unknown;
      /** middleware/json-body.ts: bytes of the request body read. */
      bytesIn?: number;
      /** http-errors.ts: the error this request was answered with, for the request log. */
      problem?: { code: ErrorCode; detail: string | undefined };
      /** A route's own request log entry (scrapes); otherwise request-log/record-requests.ts builds one. */
      requestLogEntry?: RequestLogEntry;
    }
  }
}

export {};
