import { Router, type Request } from 'express';
import { apiReferenceRouter } from '../../lib/api-reference/router.js';
import { ServiceError } from '../../lib/errors/index.js';

export const API_REFERENCE_PATH = '/api-reference';

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
    return (await response.json()) as Record<string, unknown>;
  };
  // The dashboard's strict CSP holds here unchanged: Swagger UI sets styles through the CSSOM, which
  // style-src does not restrict, and loads nothing but its own files (test/dashboard/api-reference.test.ts).
  const router = Router();
  router.use(apiReferenceRouter(document), (req: Request) => {
    throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No dashboard route ${req.method} ${req.originalUrl.split('?')[0]}`);
  });
  return router;
}
