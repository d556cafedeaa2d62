import { randomBytes } from 'node:crypto';
import type { Attempt } from '../../lib/errors/index.js';
import { codeAnchor, ServiceError } from '../../lib/errors/index.js';
import type { ScrapeJob } from '../../lib/protocol/index.js';
import type { EgressGuard } from '../egress/guard.js';
import type { Engine, EngineContext, RawPage } from '../engine.js';
import { routeOf } from '../egress/redact.js';
import { geoOf } from '../../lib/proxy-pool/geo.js';
import { findBrowserBinary, type BrowserEngineName } from './binary.js';
import { connectCdpBrowser, launchManagedBrowser, type ManagedBrowser } from './browser-process.js';
import { BrowserPool } from './browser-pool.js';
import { BrowserBroken, renderPage, type RenderedPage } from './render-page.js';
import { StageClock } from './stage-clock.js';
import { startVirtualDisplay, type VirtualDisplay } from './xvfb.js';
import { toAbortSignal } from '../cancellation.js';

export { findBrowserBinary } from './binary.js';

export interface BrowserEngineOptions {
  name: BrowserEngineName;
  guard: EgressGuard;
  /** Renders at once; also the number of warm browsers. Default 2. */
  capacity?: number;
  /** Browser binary; default findBrowserBinary(name, process.env). */
  executablePath?: string;
  /** obscura only: drive an Obscura (or any CDP) server instead of launching a browser. */
  cdpEndpoint?: string;
  /** Replace a pooled browser after this many pages. Default 50. */
  recycleAfterPages?: number;
  /** X display for headful renders; default: an Xvfb this engine starts on first use. */
  display?: string;
  /** Time kept back from the job deadline to send the result home, ms. Default 250. */
  deadlineMarginMs?: number;
}

const WIRE_BODY_HEADERS = ['content-encoding', 'content-length', 'transfer-encoding'];

/**
 * The `obscura` and `chromium` engines: a warm pool of browsers, one fresh context per job, every
 * connection through the egress guard. Headful jobs (chromium, `headless=false`) get a browser of
 * their own on a virtual display, closed after the job.
 */
export class BrowserEngine implements Engine {
  readonly name: BrowserEngineName;
  readonly capacity: number;
  private readonly instanceId = randomBytes(4).toString('hex');
  private readonly pool: BrowserPool;
  private readonly executablePath: string | null;
  private display: Promise<VirtualDisplay> | null = null;
  private readonly headful = new Set<ManagedBrowser>();

  constructor(private readonly options: BrowserEngineOptions) {
    this.name = options.name;
    this.capacity = Math.max(1, options.capacity ?? 2);
    this.executablePath = options.executablePath ?? findBrowserBinary(options.name, process.env);
    const cdp = options.name === 'obscura' ? options.cdpEndpoint : undefined;
    this.pool = new BrowserPool({
      size: this.capacity,
      recycleAfterPages: Math.max(1, options.recycleAfterPages ?? 50),
      warm: true,
      launch: cdp ? () => connectCdpBrowser(cdp) : () => this.launch(false),
    });
  }

  /** The tag in this engine's browser command lines (`pgrep -f <marker>`). */
  get marker(): string {
    return `${this.name}-${this.instanceId}`;
  }

  async start(): Promise<void> {
    await this.pool.start();
  }

  async stop(): Promise<void> {
    await this.pool.stop();
    await Promise.allSettled([...this.headful].map((browser) => browser.kill()));
    const display = this.display;
    this.display = null;
    if (display) await display.then((d) => d.close()).catch(() => undefined);
  }

  async fetch(job: ScrapeJob, context: EngineContext): Promise<RawPage> {
    const params = job.params;
    const clock = new StageClock();
    const route = routeOf(job);
    const proxy = route.use;
    const deadline = Math.min(job.deadline_at, Date.now() + job.budget_ms) - (this.options.deadlineMarginMs ?? 250);
    const headful = params.headless === false;
    const signal = AbortSignal.any([toAbortSignal(context.signal), AbortSignal.timeout(Math.max(1, deadline - Date.now()))]);
    const attempt = (outcome: string, error: ServiceError | null): Attempt => ({
      n: 1,
      engine: this.name,
      proxy: proxy.endpoint,
      outcome,
      ms: clock.elapsed(),
      error_code: error ? codeAnchor(error.code) : null,
    });
    const lease = this.options.guard.lease({ requestId: job.request_id, upstreamProxy: route.upstreamProxy, trustedUpstream: route.trustedUpstream });
    let browser: ManagedBrowser | null = null;
    let broken = false;
    try {
      if (headful && this.name !== 'chromium') {
        throw new ServiceError('ERR::REQUEST::CAPABILITY_UNSUPPORTED', 'headless=false needs the chromium engine');
      }
      browser = await clock.run('browser', () => (headful ? this.launchHeadful() : this.pool.acquire(signal)));
      const page: RenderedPage = await renderPage({
        browser: browser.browser,
        params,
        session: job.session,
        lease,
        geo: proxy.source === 'pool' ? geoOf(params.proxy_country ?? job.exit?.country) : null,
        headful,
        canRasterise: this.name === 'chromium',
        deadline,
        signal,
        clock,
        onStuckBrowser: () => {
          broken = true;
        },
      });
      const headers = { ...page.headers };
      for (const name of WIRE_BODY_HEADERS) delete headers[name];
      const bytes = lease.bytes();
      return {
        ...page,
        headers,
        attempts: [attempt(page.blocked ? 'challenge' : 'ok', null)],
        timeline: [...lease.timeline(), ...clock.steps],
        bytesIn: bytes.in,
        proxyBytes: proxy.source === 'direct' ? 0 : bytes.in + bytes.out,
        proxy,
      };
    } catch (caught) {
      if (caught instanceof BrowserBroken) broken = true;
      const error = caught instanceof BrowserBroken ? caught.serviceError : caught instanceof ServiceError ? caught : null;
      const failure = error ?? new ServiceError('ERR::ENGINE::RENDER_FAILED', 'Render failed', { cause: caught });
      throw failure.with({
        diagnostics: {
          ...failure.diagnostics,
          failed_at: failure.diagnostics?.failed_at ?? clock.stage,
          timeline: [...lease.timeline(), ...clock.steps],
          attempts: [attempt('error', failure)],
          budget_ms: job.budget_ms,
          elapsed_ms: clock.elapsed(),
          engine: this.name,
          proxy,
        },
      });
    } finally {
      lease.release();
      if (browser && headful) {
        this.headful.delete(browser);
        await browser.kill();
      } else if (browser) {
        this.pool.release(browser, broken || browser.isDead());
      }
    }
  }

  private launch(headful: boolean, display?: string): Promise<ManagedBrowser> {
    if (this.executablePath === null) {
      return Promise.reject(new ServiceError('ERR::ENGINE::UNAVAILABLE', `No browser binary for ${this.name} on this machine`));
    }
    return launchManagedBrowser({
      executablePath: this.executablePath,
      headless: !headful,
      display,
      marker: this.marker,
    });
  }

  private async launchHeadful(): Promise<ManagedBrowser> {
    const display = this.options.display ?? (await this.virtualDisplay()).display;
    const browser = await this.launch(true, display).catch((error: unknown) => {
      throw error instanceof ServiceError ? error : new ServiceError('ERR::ENGINE::UNAVAILABLE', 'Headful browser failed to start', { cause: error });
    });
    this.headful.add(browser);
    return browser;
  }

  private virtualDisplay(): Promise<VirtualDisplay> {
    this.display ??= startVirtualDisplay().catch((error: unknown) => {
      this.display = null;
      throw error;
    });
    return this.display;
  }
}
