import express, { Router, type Request, type Response } from 'express';
import { apiReferenceRouter } from '../../lib/api-reference/router.js';
import { ServiceError } from '../../lib/errors/index.js';

export const API_REFERENCE_PATH = '/api-reference';

/** Where "Try it out" sends: the document's server, passed on to the gateway's /v1 on this origin. */
const GATEWAY_PASS_PATH = '/gateway';
const PASS_BODY_LIMIT = '2mb';
const PASS_REQUEST_HEADERS = ['authorization', 'content-type', 'accept'];
const PASS_ANSWER_HEADERS = /^(content-type|x-.*|retry-after|cache-state|link|concurrency-.*|cache-control)$/i;

/** How long the page waits for the gateway's document. */
const DOCUMENT_TIMEOUT_MS = 10_000;

/**
 * The rendered API reference on the dashboard's origin (docs/api-reference.md "Mounting the reference
 * elsewhere"): the page and Swagger UI's files are served here, the document is read from the gateway's
 * public GET /v1/openapi.json on each load, so it is always the one the gateway answers with.
 */
export function apiReferenceRoutes(apiUrl: () => string): Router {
  const document = async (): Promise<Record<string, unknown>> => {
    const response = await fetch(`${apiUrl()}/v1/openapi.json`, { signal: AbortSignal.timeout(DOCUMENT_TIMEOUT_MS) }).catch((cause: unknown) => {
      throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The gateway did not answer with its API document', { cause });
    });
    if (!response.ok) throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', `The gateway answered ${response.status} for its API document`);
    const gatewayDocument = (await response.json()) as Record<string, unknown>;
    return { ...gatewayDocument, servers: [{ url: `${API_REFERENCE_PATH}${GATEWAY_PASS_PATH}`, description: 'The gateway, through this dashboard (Try it out)' }] };
  };
  // The dashboard's strict CSP holds here unchanged: Swagger UI sets styles through the CSSOM, which
  // style-src does not restrict, and loads nothing but its own files (test/dashboard/api-reference.test.ts).
  const router = Router();
  router.use(GATEWAY_PASS_PATH, express.raw({ type: () => true, limit: PASS_BODY_LIMIT }), (req, res, next) => void passToGateway(apiUrl(), req, res).catch(next));
  router.use(apiReferenceRouter(document), (req: Request) => {
    throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No dashboard route ${req.method} ${req.originalUrl.split('?')[0]}`);
  });
  return router;
}

/**
 * "Try it out" on the dashboard's origin: the dashboard's CSP (connect-src 'self') keeps Swagger UI
 * from calling the gateway's port, so the call comes here and is passed on with only the caller's own
 * Authorization, Content-Type and Accept (never the dashboard's cookie), and only to /v1.
 */
async function passToGateway(apiUrl: string, req: Request, res: Response): Promise<void> {
  if (!req.path.startsWith('/v1/')) throw new ServiceError('ERR::REQUEST::NOT_FOUND', `Only /v1 routes are passed to the gateway, not ${req.path}`);
  const headers: Record<string, string> = {};
  for (const name of PASS_REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  const hasBody = Buffer.isBuffer(req.body) && req.body.length > 0;
  const answer = await fetch(`${apiUrl}${req.path}${query}`, { method: req.method, headers, body: hasBody ? new Uint8Array(req.body as Buffer) : undefined }).catch((cause: unknown) => {
    throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The gateway did not answer', { cause });
  });
  answer.headers.forEach((value, name) => {
    if (PASS_ANSWER_HEADERS.test(name)) res.setHeader(name, value);
  });
  res.status(answer.status).send(Buffer.from(await answer.arrayBuffer()));
}
