import { Router, type RequestHandler } from 'express';
import type { Scope } from '../../lib/store/accounts.js';
import { scope } from '../middleware/auth.js';
import { methodNotAllowed } from '../middleware/method-not-allowed.js';
import { OPERATIONS, type OperationSpec } from '../openapi/document.js';

/**
 * The route table is the API's OpenAPI operations (gateway/openapi/): each route is declared by its
 * operationId and its handlers, and its path, method, scope, documented schemas and metric label
 * (`routeLabel`) all come from that one operation. A route without an operation cannot be declared.
 */
export interface DeclaredRoute {
  operationId: string;
  handlers: RequestHandler[];
}

export interface DeclareOptions {
  /**
   * Where the operation's scope is checked: before its handlers (default); on every method of the
   * path, so an unsupported method by a key without the scope is refused for its scope first; or by
   * the handlers themselves, in an order of their own (the scrape's admission).
   */
  scopeChecked?: 'per-method' | 'every-method' | 'by-handler';
  /** HEAD answers 405-style instead of running the GET handler (a scrape would run, and bill). */
  refuseHead?: boolean;
}

/** The order the allowed methods are named in (the Allow header). */
const METHOD_ORDER = ['GET', 'POST', 'DELETE'];

const BY_ID = new Map(OPERATIONS.map((operation) => [operation.operationId, operation]));

/** The operation named `operationId`; throws at start-up when there is none. */
export function operation(operationId: string): OperationSpec {
  const found = BY_ID.get(operationId);
  if (!found) throw new Error(`no OpenAPI operation ${operationId} (gateway/openapi/)`);
  return found;
}

/** The scope an operation needs, or null when any key (or none) will do. */
export function scopeOf(spec: OperationSpec): Scope | null {
  return spec.access === 'public' || spec.access === 'key' ? null : spec.access;
}

/** `/v1/batch/{batchID}` as Express writes it: `/v1/batch/:batchID`. */
function expressPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}

/** A group of routes declared by operation, then routed together (`router`). */
export class RouteTable {
  private readonly routes: DeclaredRoute[] = [];

  /** Path parameters are the operation's `{names}`, each one string. */
  declare(operationId: string, ...handlers: Array<RequestHandler<Record<string, string>>>): void {
    this.routes.push({ operationId, handlers: handlers as RequestHandler[] });
  }

  router(options: DeclareOptions = {}): Router {
    return declareRoutes(Router(), this.routes, options);
  }
}

/**
 * Routes `routes` on `router`, grouped by path in declaration order: each method's scope check (from
 * its operation's access) and handlers, then any other method refused with the allowed ones named.
 */
export function declareRoutes(router: Router, routes: DeclaredRoute[], options: DeclareOptions = {}): Router {
  const byPath = new Map<string, Array<{ spec: OperationSpec; handlers: RequestHandler[] }>>();
  for (const route of routes) {
    const spec = operation(route.operationId);
    byPath.set(spec.path, [...(byPath.get(spec.path) ?? []), { spec, handlers: route.handlers }]);
  }
  const checked = options.scopeChecked ?? 'per-method';
  for (const [path, methods] of byPath) {
    const route = router.route(expressPath(path));
    const allowed = METHOD_ORDER.filter((method) => methods.some(({ spec }) => spec.method.toUpperCase() === method));
    if (checked === 'every-method') {
      const scopes = new Set(methods.map(({ spec }) => scopeOf(spec)));
      const [only] = scopes;
      if (scopes.size !== 1) throw new Error(`the methods of ${path} need different scopes`);
      if (only) route.all(scope(only));
    }
    if (options.refuseHead) route.head(methodNotAllowed(allowed));
    for (const { spec, handlers } of methods) {
      const needed = checked === 'per-method' ? scopeOf(spec) : null;
      route[spec.method](...(needed ? [scope(needed)] : []), ...handlers);
    }
    route.all(methodNotAllowed(allowed));
  }
  return router;
}

const LABELS = OPERATIONS.map((spec) => ({
  label: spec.path,
  pattern: new RegExp(`^${spec.path.replace(/\{[^}]+\}/g, '[^/]+').replace(/[.]/g, '\\.')}/?$`, 'i'),
}));

/** Bounded metric labels: the path template of the operation the path belongs to, never a raw path with ids in it; null for none. */
export function operationLabel(path: string): string | null {
  return LABELS.find(({ pattern }) => pattern.test(path))?.label ?? null;
}
