import { ServiceError } from '../../lib/errors/index.js';
import type { ManagedBrowser } from './browser-process.js';

export interface BrowserPoolOptions {
  /** Browsers at most; each serves one render at a time, so a crash costs one request. */
  size: number;
  /** A browser is replaced after serving this many pages. */
  recycleAfterPages: number;
  launch: () => Promise<ManagedBrowser>;
  /** Keep `size` browsers launched and idle ahead of demand. */
  warm: boolean;
}

/**
 * Warm browsers handed out one render at a time. A browser that crashed, disconnected or reached
 * its page quota is killed (whole process group) and, in a warm pool, replaced in the background.
 */
export class BrowserPool {
  private readonly idle: ManagedBrowser[] = [];
  private readonly busy = new Set<ManagedBrowser>();
  private launching = 0;
  private waiters: Array<() => void> = [];
  private readonly dying = new Set<Promise<void>>();
  /** Worn-out browsers still serving while their replacement launches. */
  private readonly replacing = new Set<ManagedBrowser>();
  /** Worn-out browsers whose replacement is up, retired when their render ends. */
  private readonly retireOnRelease = new Set<ManagedBrowser>();
  private stopped = false;

  constructor(private readonly options: BrowserPoolOptions) {}

  async start(): Promise<void> {
    if (!this.options.warm) return;
    const launches = Array.from({ length: this.options.size }, () => this.launchIdle());
    const outcomes = await Promise.allSettled(launches);
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failure && this.idle.length === 0) throw failure.reason;
  }

  get stats(): { idle: number; busy: number; launching: number } {
    return { idle: this.idle.length, busy: this.busy.size, launching: this.launching };
  }

  async acquire(signal: AbortSignal): Promise<ManagedBrowser> {
    for (;;) {
      if (this.stopped) throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'Browser pool is stopping');
      if (signal.aborted) throw new ServiceError('ERR::UPSTREAM::TIMEOUT', 'Budget ran out waiting for a browser');
      const browser = this.takeIdle();
      if (browser) return browser;
      if (this.total() < this.options.size) return this.launchBusy();
      await this.changed(signal);
    }
  }

  /**
   * Gives a browser back; `broken` (or a dead one) gets it killed and replaced. A worn-out browser of a
   * warm pool keeps serving until its replacement is up (docs/browser-engines.md "Pools and recycling"), so a render
   * never waits for a launch because a healthy browser reached its page quota.
   */
  release(browser: ManagedBrowser, broken: boolean): void {
    this.busy.delete(browser);
    browser.pagesServed += 1;
    const wornOut = browser.pagesServed >= this.options.recycleAfterPages;
    if (this.retireOnRelease.delete(browser)) {
      // Its replacement is already in the pool: retire it without launching another.
      this.retire(browser);
    } else if (this.stopped || broken || browser.isDead() || (wornOut && !this.options.warm)) {
      this.retire(browser);
      // A worn browser that broke while its replacement launches needs no second one.
      if (!this.stopped && this.options.warm && !this.replacing.has(browser)) void this.launchIdle().catch(() => undefined);
    } else {
      this.idle.push(browser);
      if (wornOut && !this.replacing.has(browser)) this.replace(browser);
    }
    this.notify();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.notify();
    for (const browser of [...this.idle, ...this.busy]) this.retire(browser);
    this.idle.length = 0;
    this.busy.clear();
    while (this.dying.size > 0 || this.launching > 0) {
      await Promise.allSettled([...this.dying]);
      if (this.launching > 0) await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  private total(): number {
    return this.idle.length + this.busy.size + this.launching;
  }

  private takeIdle(): ManagedBrowser | null {
    for (let browser = this.idle.shift(); browser; browser = this.idle.shift()) {
      if (browser.isDead()) {
        this.retire(browser);
        continue;
      }
      this.busy.add(browser);
      return browser;
    }
    return null;
  }

  /** Launches a replacement for a worn-out browser, then retires it (now if idle, else after its render). */
  private replace(worn: ManagedBrowser): void {
    this.replacing.add(worn);
    void this.launchIdle().then(
      () => {
        this.replacing.delete(worn);
        const index = this.idle.indexOf(worn);
        if (index >= 0) {
          this.idle.splice(index, 1);
          this.retire(worn);
        } else if (this.busy.has(worn)) {
          this.retireOnRelease.add(worn);
        }
      },
      // No replacement: the worn browser keeps serving, and its next release tries again.
      () => this.replacing.delete(worn),
    );
  }

  private retire(browser: ManagedBrowser): void {
    const death = browser.kill().finally(() => this.dying.delete(death));
    this.dying.add(death);
  }

  private async launchIdle(): Promise<void> {
    const browser = await this.launchCounted();
    // The launch stops counting in the same tick the browser joins the pool, so a waiter that
    // wakes up never sees neither and launches a browser too many.
    this.launching -= 1;
    if (this.stopped) this.retire(browser);
    else this.idle.push(browser);
    this.notify();
  }

  private async launchBusy(): Promise<ManagedBrowser> {
    const browser = await this.launchCounted();
    this.launching -= 1;
    if (this.stopped) {
      this.retire(browser);
      this.notify();
      throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'Browser pool is stopping');
    }
    this.busy.add(browser);
    return browser;
  }

  /** Launches with `launching` raised; on success the caller lowers it, on failure this does. */
  private async launchCounted(): Promise<ManagedBrowser> {
    this.launching += 1;
    try {
      return await this.options.launch();
    } catch (error) {
      this.launching -= 1;
      this.notify();
      throw new ServiceError('ERR::ENGINE::UNAVAILABLE', 'Browser failed to start', { cause: error });
    }
  }

  private changed(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        signal.removeEventListener('abort', wake);
        resolve();
      };
      signal.addEventListener('abort', wake, { once: true });
      this.waiters.push(wake);
    });
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
