import { chromium, type Browser, type BrowserServer } from 'playwright-core';
import { CHROMIUM_ARGS, FAIL_CLOSED_PROXY, markerArg } from './launch-args.js';

export interface LaunchOptions {
  executablePath: string;
  headless: boolean;
  /** X display for headful browsers, e.g. `:99`. */
  display?: string;
  /** Tag placed in the command line (see markerArg). */
  marker: string;
  launchTimeoutMs?: number;
}

/** One running browser: a Playwright connection plus the process group we own. */
export interface ManagedBrowser {
  readonly browser: Browser;
  readonly pid: number | null;
  pagesServed: number;
  /** True once the browser disconnected or was killed; it must not serve again. */
  isDead(): boolean;
  /** SIGKILL the whole process group and wait until the main process is gone. Idempotent. */
  kill(): Promise<void>;
}

/** How long a browser may take to shut down cleanly before its process group is SIGKILLed. */
const GRACEFUL_CLOSE_MS = 2_000;

function killGroup(pid: number | null): void {
  if (pid === null) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/**
 * Launches Chromium through `launchServer` so the process handle is ours: Playwright only kills
 * the process group while the main process is alive, and after a crash the renderers it leaves
 * behind would otherwise outlive it.
 */
export async function launchManagedBrowser(options: LaunchOptions): Promise<ManagedBrowser> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  if (options.display) env.DISPLAY = options.display;
  const server: BrowserServer = await chromium.launchServer({
    executablePath: options.executablePath,
    headless: options.headless,
    args: [...CHROMIUM_ARGS, markerArg(options.marker)],
    proxy: { server: FAIL_CLOSED_PROXY },
    env,
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    timeout: options.launchTimeoutMs ?? 30_000,
  });
  const child = server.process();
  const pid = child.pid ?? null;
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  let browser: Browser;
  try {
    browser = await chromium.connect(server.wsEndpoint(), { timeout: options.launchTimeoutMs ?? 30_000 });
  } catch (error) {
    killGroup(pid);
    await server.kill().catch(() => undefined);
    throw error;
  }
  let dead = false;
  let killing: Promise<void> | null = null;
  const kill = (): Promise<void> => {
    killing ??= (async () => {
      dead = true;
      // A live browser closes itself, reaping its own children; SIGKILL of the group is the
      // fallback, and after a crash it finishes off the orphans still in the group.
      if (child.exitCode === null && child.signalCode === null) {
        const closed = server.close().catch(() => undefined);
        const timer = new Promise<void>((resolve) => setTimeout(resolve, GRACEFUL_CLOSE_MS).unref());
        await Promise.race([closed, timer]);
      }
      killGroup(pid);
      await server.kill().catch(() => undefined);
      await exited;
      killGroup(pid);
    })();
    return killing;
  };
  browser.on('disconnected', () => {
    dead = true;
    void kill();
  });
  child.once('exit', () => {
    dead = true;
    void kill();
  });
  return {
    browser,
    pid,
    pagesServed: 0,
    isDead: () => dead || !browser.isConnected(),
    kill,
  };
}

/** A browser we do not own (an Obscura or Chromium server reached over CDP). */
export async function connectCdpBrowser(endpoint: string): Promise<ManagedBrowser> {
  const browser = await chromium.connectOverCDP(endpoint, { timeout: 30_000 });
  let dead = false;
  browser.on('disconnected', () => {
    dead = true;
  });
  return {
    browser,
    pid: null,
    pagesServed: 0,
    isDead: () => dead || !browser.isConnected(),
    kill: async () => {
      dead = true;
      await browser.close().catch(() => undefined);
    },
  };
}
