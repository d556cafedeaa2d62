import { beforeAll, describe, expect, it } from 'vitest';
import { isUlid } from '../../lib/ids.js';
import { insertRequestLog } from '../../lib/store/request-log.js';
import { makeEntry } from '../request-log/log-entries.js';
import { startCountingListener } from '../egress/counting-listener.js';
import { authed, jsonPost } from '../support/embedded.js';
import { bodyProbes, urlProbes, type Fixtures, type Probe } from './forms.js';
import { dateProbes, edgeProbes } from './more-forms.js';
import { embeddedForSuite } from '../support/suite-service.js';

const service = embeddedForSuite({ engines: ['fetch'], env: { DEFAULT_RATE_LIMIT_PER_SECOND: '100000', BATCH_DISPATCH_INTERVAL_MS: '60000' } });
let fixtures: Fixtures;

beforeAll(async () => {
  const targetUrl = `${service.url}/healthz`;
  const job = await (await fetch(`${service.url}/v1/batch`, jsonPost(service.secret, { urls: [targetUrl], open: true }))).json();
  const session = await (await fetch(`${service.url}/v1/sessions`, jsonPost(service.secret, {}))).json();
  const hook = await (await fetch(`${service.url}/v1/webhooks`, jsonPost(service.secret, { url: 'https://hooks.example.com/x' }))).json();
  fixtures = { jobId: job.id, sessionId: session.id, webhookId: hook.id, targetUrl };
  for (const [name, value] of Object.entries(fixtures)) expect(value, name).toBeTypeOf('string');
});

interface Outcome {
  probe: Probe;
  status: number;
  code: string;
  detail: string;
  problems: string[];
}

async function send(probe: Probe): Promise<Outcome> {
  const init: RequestInit = { method: probe.method };
  if (probe.body !== undefined) init.headers = { 'content-type': 'application/json' };
  if (probe.body !== undefined) init.body = probe.body;
  const response = await fetch(`${service.url}${probe.path}`, authed(service.secret, init));
  const text = await response.text();
  const problems: string[] = [];
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    problems.push('body is not JSON');
  }
  const detail = typeof body.detail === 'string' ? body.detail : '';
  const requestId = response.headers.get('x-request-id') ?? '';
  if (response.status !== 400) problems.push(`status ${response.status}`);
  if (probe.code !== undefined && body.code !== probe.code) problems.push(`code ${String(body.code)}, not ${probe.code}`);
  if (!(response.headers.get('content-type') ?? '').startsWith('application/problem+json')) problems.push('not problem+json');
  if (!detail.includes(probe.field)) problems.push(`detail does not name ${probe.field}`);
  if (!isUlid(requestId) || body.request_id !== requestId) problems.push('no X-Request-Id matching the body');
  if (probe.logs && isUlid(requestId)) {
    const logged = await fetch(`${service.url}/v1/requests/${requestId}`, authed(service.secret));
    if (logged.status !== 200) problems.push(`X-Request-Id does not resolve (${logged.status})`);
  }
  return { probe, status: response.status, code: String(body.code ?? ''), detail, problems };
}

async function runTable(probes: Probe[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const probe of probes) outcomes.push(await send(probe));
  return outcomes;
}

function report(outcomes: Outcome[]): string {
  const failed = outcomes.filter((outcome) => outcome.problems.length > 0);
  const fiveHundreds = outcomes.filter((outcome) => outcome.status >= 500).length;
  const lines = failed.map((o) => `${o.probe.label} -> ${o.status} ${o.code} [${o.problems.join('; ')}] ${o.detail.slice(0, 120)}`);
  return `${outcomes.length} probes, ${fiveHundreds} answers of 5xx, ${failed.length} failing\n${lines.join('\n')}`;
}

describe('bad input on every route gets a 400 naming the field, never a 500 (issue 8 items 4-6)', () => {
  it('strings the store cannot hold, prototype keys and deep nesting in every body', async () => {
    const outcomes = await runTable(bodyProbes(fixtures));
    expect(outcomes.filter((o) => o.problems.length > 0), report(outcomes)).toEqual([]);
  });

  it('NUL and prototype names in every query string and path', async () => {
    const outcomes = await runTable(urlProbes(fixtures));
    expect(outcomes.filter((o) => o.problems.length > 0), report(outcomes)).toEqual([]);
  });

  it('out-of-range dates in every date parameter and cursor', async () => {
    const outcomes = await runTable(dateProbes());
    expect(outcomes.filter((o) => o.problems.length > 0), report(outcomes)).toEqual([]);
  });

  it('header values HTTP does not allow, port 0, IPv4-compatible IPv6 targets and over-long strings', async () => {
    const listener = await startCountingListener('127.0.0.1');
    try {
      const outcomes = await runTable(edgeProbes(fixtures, listener.port));
      expect(outcomes.filter((o) => o.problems.length > 0), report(outcomes)).toEqual([]);
      expect(listener.connections()).toBe(0);
    } finally {
      await listener.close();
    }
  });

  it('writes a request-log record whatever text it holds, so its id resolves (item 5)', async () => {
    const entry = { ...makeEntry(service.projectId, new Date(), 'rejected'), error_detail: 'bad a\u0000b \ud800', url: 'https://example.test/\udc00' };
    entry.features = { ['k\u0000']: 'v\ud800' };
    await insertRequestLog(service.db, entry, service.organizationId);
    const response = await fetch(`${service.url}/v1/requests/${entry.id}`, authed(service.secret));
    expect(response.status).toBe(200);
    const stored = await response.json();
    expect(stored).toMatchObject({ error_detail: 'bad a\uFFFDb \uFFFD', url: 'https://example.test/\uFFFD', features: { 'k\uFFFD': 'v\uFFFD' } });
  });

  it('still serves the fixtures afterwards: nothing was changed by the refused requests', async () => {
    const job = await (await fetch(`${service.url}/v1/batch/${fixtures.jobId}`, authed(service.secret))).json();
    expect(job.total_items ?? job.items?.total).toBe(1);
    const sessions = await (await fetch(`${service.url}/v1/sessions`, authed(service.secret))).json();
    expect(sessions.sessions).toHaveLength(1);
    const hooks = await (await fetch(`${service.url}/v1/webhooks`, authed(service.secret))).json();
    expect(hooks.webhooks).toHaveLength(1);
  });
});
