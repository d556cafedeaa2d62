import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * Several middlewares as one Express layer, run in order as Express would run them: an error (thrown,
 * passed to `next` or a rejected promise) skips the rest and goes to Express. One layer instead of
 * one per middleware spares the router its per-layer path matching and prefix trimming on every
 * request (docs/platform.md, "Performance").
 */
export function inOrder(...handlers: RequestHandler[]): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    let index = 0;
    const step = (error?: unknown): void => {
      if (error !== undefined && error !== null) return next(error);
      const handler = handlers[index];
      index += 1;
      if (!handler) return next();
      try {
        const returned: unknown = handler(req, res, step);
        if (returned instanceof Promise) returned.catch((rejected: unknown) => step(rejected ?? new Error('Rejected promise')));
      } catch (thrown) {
        step(thrown);
      }
    };
    step();
  };
}
