import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { inOrder } from '../../gateway/middleware/in-order.js';

/** An app whose /v1 layer is one `inOrder` of middlewares that mark the request, fail on demand, or answer. */
function app() {
  const server = express();
  const mark = (name: string) => (req: Request, res: Response, next: NextFunction) => {
    res.locals.seen = [...(res.locals.seen ?? []), `${name}:${req.path}`];
    next();
  };
  server.use(
    '/v1',
    inOrder(
      mark('a'),
      (req, _res, next) => (req.query.fail === 'next' ? next(new Error('passed to next')) : next()),
      (req, _res, next) => {
        if (req.query.fail === 'throw') throw new Error('thrown');
        next();
      },
      async (req, _res, next) => {
        if (req.query.fail === 'reject') throw new Error('rejected');
        next();
      },
      mark('b'),
    ),
  );
  server.get('/v1/thing', (_req, res) => res.json({ seen: res.locals.seen }));
  server.use((error: Error, _req: Request, res: Response, _next: NextFunction) => res.status(500).json({ error: error.message, seen: res.locals.seen }));
  return server;
}

describe('inOrder: several middlewares as one Express layer (gateway/middleware/in-order.ts)', () => {
  let server: Server;
  let origin: string;
  beforeAll(async () => {
    server = app().listen(0);
    await new Promise((resolve) => server.once('listening', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('runs every middleware in order under the mount path, then the route', async () => {
    const response = await fetch(`${origin}/v1/thing`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ seen: ['a:/thing', 'b:/thing'] });
  });

  it.each([
    ['next', 'passed to next'],
    ['throw', 'thrown'],
    ['reject', 'rejected'],
  ])('hands an error (%s) to Express and skips the middlewares after it', async (fail, message) => {
    const response = await fetch(`${origin}/v1/thing?fail=${fail}`);
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: message, seen: ['a:/thing'] });
  });
});
