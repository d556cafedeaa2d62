import { Router } from 'express';
import { z } from 'zod';
import { storableString } from '../../lib/validation/storable.js';
import { checkTargetUrl } from '../../lib/egress/policy.js';
import { ServiceError } from '../../lib/errors/index.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import { deleteEndpoint, insertEndpoint, listEndpoints, type WebhookEndpointRow } from '../../lib/store/batch/webhooks.js';
import type { GatewayContext } from '../context.js';
import { principalOf, scope } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { noQueryParameters, rejectQueryParameters } from '../query-parameters.js';
import { newWebhookSecret } from '../webhooks/signature.js';

export const CreateEndpointSchema = z.strictObject({
  url: storableString().min(1).max(2048),
  secret: storableString().min(16, 'must be at least 16 characters').max(256).nullish(),
});

/** Webhook endpoints of the organization (scope `batch`); docs/batch.md "Webhooks". */
export function webhookRoutes(context: GatewayContext): Router {
  const router = Router();
  router
    .route('/v1/webhooks')
    .post(scope('batch'), noQueryParameters, jsonBody({ required: true }), async (_req, res) => {
      const parsed = CreateEndpointSchema.safeParse(res.locals.body);
      if (!parsed.success) throw invalidParameter(parsed.error);
      const url = checkTargetUrl(parsed.data.url, context.egressPolicy).href;
      const principal = principalOf(res);
      const secret = parsed.data.secret ?? newWebhookSecret();
      const endpoint = await insertEndpoint(context.db, context.box, {
        organization_id: principal.organization.id,
        project_id: principal.project.id,
        url,
        secret,
      });
      // The secret is shown once, on creation, like an API key; the store keeps it sealed.
      res.status(201).json({ ...endpointObject(endpoint), secret });
    })
    .get(scope('batch'), async (req, res) => {
      rejectQueryParameters(req);
      const endpoints = await listEndpoints(context.db, principalOf(res).organization.id);
      res.setHeader('Cache-Control', 'no-store');
      res.json({ webhooks: endpoints.map(endpointObject) });
    })
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/v1/webhooks/:id')
    .delete(scope('batch'), async (req, res) => {
      rejectQueryParameters(req);
      const deleted = await deleteEndpoint(context.db, String(req.params.id), principalOf(res).organization.id);
      if (!deleted) throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No webhook endpoint ${String(req.params.id)}`);
      res.status(204).end();
    })
    .all(methodNotAllowed(['DELETE']));
  return router;
}

function endpointObject(endpoint: WebhookEndpointRow): Record<string, unknown> {
  return {
    id: endpoint.id,
    project_id: endpoint.project_id,
    url: endpoint.url,
    events: ['batch.finished'],
    created_at: endpoint.created_at.toISOString(),
  };
}
