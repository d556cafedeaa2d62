import type { NextFunction, Request, Response } from 'express';
import { ServiceError } from '../../lib/errors/index.js';
import { QUERY_KEY_PARAMETERS } from '../../lib/apikeys.js';
import type { Scope } from '../../lib/store/accounts.js';
import type { KeyResolver, Principal } from '../auth/key-resolver.js';

/**
 * Authenticates every /v1 request from the Authorization header. Query-string keys are ignored,
 * except on `queryKeyPath` (`/v1/browser`; docs/api-reference.md "Authentication" 2).
 */
export function authenticate(resolver: KeyResolver, queryKeyPath: string) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      let authorization = req.headers.authorization;
      if (!authorization && req.originalUrl.split('?')[0] === queryKeyPath) {
        const key = QUERY_KEY_PARAMETERS.map((name) => req.query[name]).find((value) => value !== undefined);
        if (typeof key === 'string' && key !== '') authorization = `Bearer ${key}`;
      }
      res.locals.principal = await resolver.resolve(authorization);
      next();
    } catch (error) {
      next(withQueryKeyHint(error, req));
    }
  };
}

export function principalOf(res: Response): Principal {
  const principal = res.locals.principal;
  if (!principal) throw new Error('no principal: the route is not behind authenticate()');
  return principal;
}

export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.key.scopes.includes(scope)) {
    throw new ServiceError('ERR::AUTH::INSUFFICIENT_SCOPE', `This route needs the "${scope}" scope`);
  }
}

export function scope(name: Scope) {
  return (_req: Request, res: Response, next: NextFunction) => {
    try {
      requireScope(principalOf(res), name);
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** A key sent as `?api_key=` (as other APIs take it) is not read here: the 401 says where it goes. */
function withQueryKeyHint(error: unknown, req: Request): unknown {
  if (!(error instanceof ServiceError) || error.code !== 'ERR::AUTH::MISSING_KEY') return error;
  const name = QUERY_KEY_PARAMETERS.find((candidate) => req.query[candidate] !== undefined);
  if (name === undefined) return error;
  return new ServiceError('ERR::AUTH::MISSING_KEY', `"${name}" in the query string is not read on this route (only on /v1/browser): send the key as Authorization: Bearer <API_KEY>`);
}
