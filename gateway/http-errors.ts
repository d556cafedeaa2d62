import type { Request, Response } from 'express';
import { entryFor, problemBody, toServiceError, type ServiceError } from '../lib/errors/index.js';
import type { Logger } from '../lib/log.js';

export interface ProblemOptions {
  docsUrl: string;
  browserRoute?: boolean;
}

/** Sends any error as application/problem+json; the status comes from the catalogue only. */
export function sendProblem(req: Request, res: Response, error: unknown, options: ProblemOptions): void {
  const serviceError: ServiceError = toServiceError(error);
  const requestId: string | undefined = res.locals.requestId;
  const entry = entryFor(serviceError, options.browserRoute);
  const body = problemBody(serviceError, {
    docsUrl: options.docsUrl,
    requestId,
    instance: req.originalUrl.split('?')[0],
    browserRoute: options.browserRoute,
  });
  res.locals.problem = { code: serviceError.code, detail: serviceError.detail };
  for (const [name, value] of Object.entries(serviceError.headers)) res.setHeader(name, value);
  if (serviceError.retryAfterSeconds !== undefined) res.setHeader('Retry-After', String(serviceError.retryAfterSeconds));
  if (!res.hasHeader('X-Credits-Charged')) res.setHeader('X-Credits-Charged', '0');
  res.status(entry.status).type('application/problem+json').send(JSON.stringify(body));
}

export function logUnexpected(logger: Logger, error: unknown): void {
  const serviceError = toServiceError(error);
  if (serviceError.code === 'ERR::INTERNAL::ERROR') logger.error({ err: serviceError.cause ?? error }, 'unexpected error');
  else if (serviceError.code === 'ERR::INTERNAL::UNAVAILABLE' && serviceError.cause !== undefined) logger.warn({ err: serviceError.cause }, 'a dependency is out of reach');
}
