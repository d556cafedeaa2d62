import { createServer } from 'node:net';
import { ErrorCode, NatsError } from 'nats';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { toBusError } from '../../lib/bus/nats-reply-protocol.js';
import { toServiceError } from '../../lib/errors/index.js';

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('a dependency out of reach is a 503 INTERNAL::UNAVAILABLE, not a 500', () => {
  it('maps the database client failing to connect', async () => {
    const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/none`, connectionTimeoutMillis: 10_000 });
    const failure = await client.connect().then(() => null, (error: unknown) => error);
    expect(failure).toBeInstanceOf(Error);
    const mapped = toServiceError(failure);
    expect(mapped).toMatchObject({ code: 'ERR::INTERNAL::UNAVAILABLE', status: 503, retryable: true });
  });

  it.each([
    ['a lost connection', Object.assign(new Error('Connection terminated unexpectedly'), {})],
    ['a server shutting down (SQLSTATE 57P01)', Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' })],
    ['a connection refused by the server (SQLSTATE 08006)', Object.assign(new Error('connection failure'), { code: '08006' })],
    ['a wrapped socket error', new Error('query failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })],
  ])('maps %s', (_what, error) => {
    expect(toServiceError(error).code).toBe('ERR::INTERNAL::UNAVAILABLE');
  });

  it('keeps any other failure a retryable internal error with its detail', () => {
    expect(toServiceError(new Error('boom'), 'Scrape failed')).toMatchObject({ code: 'ERR::INTERNAL::ERROR', status: 500, detail: 'Scrape failed' });
    expect(toServiceError(Object.assign(new Error('duplicate key'), { code: '23505' })).code).toBe('ERR::INTERNAL::ERROR');
  });

  it('takes a NATS connection that is down for the bus out of reach, not for a worker', () => {
    for (const code of [ErrorCode.Disconnect, ErrorCode.ConnectionRefused, ErrorCode.ConnectionTimeout]) {
      expect(toBusError(new NatsError('nats down', code), 'trawler.v1.scrape.fetch').kind).toBe('closed');
    }
    expect(toBusError(new NatsError('no responders', ErrorCode.NoResponders), 'x').kind).toBe('no_responders');
  });
});
