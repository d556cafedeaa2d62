import type { Router } from 'express';
import { checkTargetUrl } from '../../lib/egress/policy.js';
import { ServiceError } from '../../lib/errors/index.js';
import { invalidParameter } from '../../lib/scrape/issues.js';
import { deleteEndpoint, insertEndpoint, listEndpoints, type WebhookEndpointRow } from '../../lib/store/batch/webhooks.js';
import type { GatewayContext } from '../context.js';
import { principalOf } from '../middleware/auth.js';
import { jsonBody } from '../middleware/json-body.js';
import { noQueryParameters, rejectQueryParameters } from '../query-parameters.js';
import { CreateEndpointSchema } from '../webhooks/endpoint-body.js';
import { newWebhookSecret } from '../webhooks/signature.js';
import { RouteTable } from './declare.js';

/** Webhook endpoints of the organization (scope `batch`); docs/batch.md "Webhooks". */
export function webhookRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  routes.declare('createWebhook', noQueryParameters, jsonBody({ required: true }), async (_req, res) => {
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
  });
  routes.declare('listWebhooks', async (req, res) => {
    rejectQueryParameters(req);
    const endpoints = await listEndpoints(context.db, principalOf(res).organization.id);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ webhooks: endpoints.map(endpointObject) });
  });

  routes.declare('deleteWebhook', async (req, res) => {
    rejectQueryParameters(req);
    const deleted = await deleteEndpoint(context.db, String(req.params.id), principalOf(res).organization.id);
    if (!deleted) throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No webhook endpoint ${String(req.params.id)}`);
    res.status(204).end();
  });
  return routes.router();
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
