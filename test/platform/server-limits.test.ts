import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EmbeddedService } from '../support/embedded.js';
import { until } from '../support/poll.js';
import { embeddedForSuite } from '../support/suite-service.js';
import { startDashboardService, type DashboardService } from '../dashboard/dashboard-service.js';

// Issue 27 item 7: the gateway took any number of connections and gave a request 300 s to arrive; the dashboard ran on Node's defaults.
interface RawConnection {
  socket: Socket;
  text(): string;
  closed: Promise<void>;
}

function open(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => resolve({ socket, text: () => Buffer.concat(chunks).toString('latin1'), closed }));
    const closed = new Promise<void>((done) => socket.on('close', () => done()));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.once('error', reject);
  });
}

/** A kept-alive connection that has had one answer: the server has certainly counted it. */
async function answered(url: string, path: string): Promise<RawConnection> {
  const connection = await open(url);
  connection.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  await until(() => connection.text(), (text) => text.includes('\r\n\r\n'));
  return connection;
}

async function refusedAtOnce(url: string, path: string): Promise<void> {
  const extra = await open(url);
  extra.socket.write(`GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  await extra.closed;
  expect(extra.text()).toBe('');
}

/** The request log's record of a raw 400 answer, found by its X-Request-Id with the service's key. */
async function recordOf(service: EmbeddedService, answerText: string): Promise<{ features: Record<string, unknown> }> {
  const requestId = /x-request-id: (\S+)/i.exec(answerText)?.[1] ?? '';
  const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
  expect(found.status).toBe(200);
  return (await found.json()) as { features: Record<string, unknown> };
}

describe('gateway connection limits', () => {
  const service = embeddedForSuite({ engines: [], env: { GATEWAY_MAX_CONNECTIONS: '3', GATEWAY_REQUEST_TIMEOUT_MS: '1000' } });

  it('closes a connection beyond GATEWAY_MAX_CONNECTIONS at once, and takes new ones when others end', async () => {
    const held = await Promise.all([1, 2, 3].map(() => answered(service.url, '/healthz')));
    await refusedAtOnce(service.url, '/healthz');
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
    await until(() => fetch(`${service.url}/healthz`, { headers: { connection: 'close' } }).then((r) => r.status, () => 0), (status) => status === 200);
  });

  it('answers 400 (not received in full in time) and closes a request whose body has not arrived within GATEWAY_REQUEST_TIMEOUT_MS', async () => {
    const slow = await open(service.url);
    slow.socket.write(`POST /v1/scrape HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${service.secret}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":`);
    await slow.closed; // bounded by the test's own timeout; 300 s before this change
    expect(slow.text()).toMatch(/^HTTP\/1\.1 400 /);
    expect(slow.text()).toContain('The request was not received in full in time');
    expect((await recordOf(service, slow.text())).features).toMatchObject({ method: 'POST', route: '/v1/scrape' });
  });

  it('records a request whose head timed out under the key its head carried, with its method and path', async () => {
    const slow = await open(service.url);
    // The key arrives in one segment, more header lines in another, and the head never ends.
    slow.socket.write(`DELETE /v1/sessions/s_slow HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${service.secret}\r\n`);
    slow.socket.write('X-Slow: a');
    await slow.closed;
    expect(slow.text()).toMatch(/^HTTP\/1\.1 400 [^]*The request was not received in full in time/);
    expect((await recordOf(service, slow.text())).features).toMatchObject({ method: 'DELETE', route: '/v1/sessions/s_slow' });
  });

  it('records nothing for a timed-out head whose key had not arrived, yet answers it with a request id', async () => {
    const slow = await open(service.url);
    slow.socket.write('GET /v1/workers HTTP/1.1\r\nHost: localhost\r\nAuthori');
    await slow.closed;
    const requestId = /x-request-id: (\S+)/i.exec(slow.text())?.[1];
    expect(requestId).toBeDefined();
    const found = await fetch(`${service.url}/v1/requests/${requestId}`, { headers: { authorization: `Bearer ${service.secret}` } });
    expect(found.status).toBe(404);
  });
});

describe('dashboard connection limits', () => {
  let env: DashboardService;
  beforeAll(async () => {
    env = await startDashboardService({ DASHBOARD_MAX_CONNECTIONS: '2' });
  });
  afterAll(async () => env?.stop());

  it('closes a connection beyond DASHBOARD_MAX_CONNECTIONS at once', async () => {
    const held = await Promise.all([1, 2].map(() => answered(env.dashboard.url, '/api/me')));
    await refusedAtOnce(env.dashboard.url, '/api/me');
    for (const connection of held) connection.socket.destroy();
    await Promise.all(held.map((connection) => connection.closed));
  });

  it('closes a request whose body has not arrived within 30 s (Node answers 408)', async () => {
    const slow = await open(env.dashboard.url);
    slow.socket.write('POST /api/signin HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":');
    await slow.closed; // bounded by the test's own timeout; Node's default was 300 s
    expect(slow.text()).toMatch(/^HTTP\/1\.1 408 /);
  });
});
