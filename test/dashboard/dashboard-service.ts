import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../lib/log.js';
import { listOrganizationKeys } from '../../lib/store/dashboard/keys.js';
import { startDashboard, type RunningDashboard } from '../../dashboard/server.js';
import { adoptDefaultKey, setupLink } from '../../dashboard/setup.js';
import { buildDashboardAssets } from '../../dashboard/web/build.js';
import { startEmbedded, type EmbeddedService } from '../support/embedded.js';

export interface DashboardService {
  service: EmbeddedService;
  dashboard: RunningDashboard;
  /** The one-time owner link printed at first start. */
  setupLink: string;
  stop(): Promise<void>;
}

/** The embedded service (gateway + fetch worker, PGlite in memory) with the dashboard beside it, as `trawler all` wires them. */
export async function startDashboardService(env: Record<string, string> = {}, options: { assets?: boolean; databaseUrl?: string } = {}): Promise<DashboardService> {
  const assetsDir = options.assets ? await buildDashboardAssets(mkdtempSync(join(tmpdir(), 'trawler-dashboard-assets-'))) : join(tmpdir(), 'no-assets');
  const service = await startEmbedded({
    engines: ['fetch'],
    databaseUrl: options.databaseUrl,
    env: { KEY_CACHE_SECONDS: '0', BATCH_DISPATCH_INTERVAL_MS: '50', DEFAULT_RATE_LIMIT_PER_SECOND: '1000', ...env },
  });
  const dashboard = await startDashboard(
    { config: service.config, db: service.db, ledger: service.gateway.context.ledger, logger: createLogger('dashboard-test', 'silent'), box: service.gateway.context.box, apiUrl: service.url, assetsDir },
    0,
  );
  const defaultKey = (await listOrganizationKeys(service.db, service.organizationId)).find((k) => k.name === 'Default');
  if (!defaultKey) throw new Error('bootstrap made no Default key');
  await adoptDefaultKey(dashboard.context, service.organizationId, defaultKey.id, service.secret);
  const link = await setupLink(dashboard.context);
  if (!link) throw new Error('a fresh store printed no setup link');
  return {
    service,
    dashboard,
    setupLink: link,
    async stop() {
      await dashboard.stop();
      await service.stop();
    },
  };
}

export type Json = Record<string, any>;

/** A browser-like client of the dashboard's JSON API: keeps the session cookie and sends the CSRF token. */
export class DashboardClient {
  private cookie = '';
  csrf = '';

  constructor(readonly base: string) {}

  async request(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json; headers: Headers }> {
    const response = await fetch(`${this.base}/api${path}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(this.cookie ? { cookie: this.cookie } : {}),
        ...(method === 'GET' ? {} : { 'x-csrf-token': this.csrf }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) this.cookie = setCookie.split(';')[0];
    const text = await response.text();
    const parsed = text && (response.headers.get('content-type') ?? '').includes('json') ? (JSON.parse(text) as Json) : { text };
    if (typeof parsed.csrf_token === 'string') this.csrf = parsed.csrf_token;
    return { status: response.status, body: parsed, headers: response.headers };
  }

  get = (path: string) => this.request('GET', path);
  post = (path: string, body?: unknown) => this.request('POST', path, body);

  async signUp(email: string, password: string, link: string): Promise<Json> {
    const answer = await this.post('/signup', { email, password, invitation: link.split('/').at(-1) });
    if (answer.status !== 201) throw new Error(`sign-up failed: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }
}

export function setCookieOf(headers: Headers): string {
  return headers.get('set-cookie') ?? '';
}
