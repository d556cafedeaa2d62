import type { Router, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { listRequestLog } from '../../lib/store/request-log.js';
import { findRequestLogEntry } from '../request-log/find-entry.js';
import type { GatewayContext } from '../context.js';
import { principalOf, requireScope } from '../middleware/auth.js';
import { parseListQuery } from '../request-log/list-query.js';
import { rejectQueryParameters } from '../query-parameters.js';
import { requestLogIdFrom } from '../request-log/record-id.js';
import { RouteTable } from './declare.js';

/**
 * GET /v1/requests and GET /v1/requests/{id}. Any valid key reads its own project's records; `read`
 * opens the organization's other projects. Entries past retention are never shown, purged or not.
 */
export function requestLogRoutes(context: GatewayContext): Router {
  const routes = new RouteTable();
  const retentionHours = context.config.REQUEST_LOG_RETENTION_HOURS;
  const retainedSince = () => new Date(Date.now() - retentionHours * 3_600_000);

  routes.declare('listRequests', async (req, res) => {
    const principal = principalOf(res);
    const query = parseListQuery(req.query);
    if (query.allProjects) requireScope(principal, 'read');
    const since = retainedSince();
    if (query.before && query.before.at < since) {
      throw new ServiceError(
        'ERR::REQUEST::BEYOND_RETENTION',
        `The cursor is older than the ${retentionHours}-hour retention window (retained since ${since.toISOString()})`,
      );
    }
    // Entries this gateway holds for its batched write are listed too (docs/request-log.md).
    await context.requestLog.flush();
    const page = await listRequestLog(context.db, {
      organizationId: principal.organization.id,
      projectIds: query.allProjects ? 'all' : [principal.project.id],
      status: query.status,
      onlyErrors: query.onlyErrors,
      before: query.before,
      limit: query.limit,
      retainedSince: since,
    });
    const last = page.entries.at(-1);
    noStore(res).json({
      data: page.entries,
      page: {
        retention_hours: retentionHours,
        retained_since: since.toISOString(),
        has_more: page.hasMore,
        ...(page.hasMore && last ? { next_before: last.created_at, next_before_id: last.id } : {}),
      },
    });
  });

  routes.declare('getRequest', async (req, res) => {
    rejectQueryParameters(req);
    const id = requestLogIdFrom(req.params.id);
    if (id === null) {
      throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', 'Path parameter "id" must be a 26-character ULID or a UUID');
    }
    const principal = principalOf(res);
    const entry = await findRequestLogEntry(context, id, principal.organization.id);
    const visible =
      entry !== null &&
      new Date(entry.created_at) >= retainedSince() &&
      (entry.project_id === principal.project.id || principal.key.scopes.includes('read'));
    // One answer for absent, expired, other organization's and unreadable: nothing about existence leaks.
    if (!entry || !visible) throw new ServiceError('ERR::REQUEST::NOT_FOUND', `No request log record ${req.params.id}`);
    noStore(res).json(entry);
  });

  return routes.router();
}

function noStore(res: Response): Response {
  return res.setHeader('Cache-Control', 'no-store');
}
