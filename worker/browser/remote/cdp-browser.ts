import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isHeadlessShell } from '../binary.js';
import { CHROMIUM_ARGS, FAIL_CLOSED_PROXY, markerArg } from '../launch-args.js';

/** A warm headless Chromium that remote-browser connections share, one context each. */
export interface CdpBrowser {
  /** The browser-level DevTools WebSocket on loopback; only the relay connects to it. */
  readonly endpoint: string;
  isDead(): boolean;
  kill(): Promise<void>;
}

const LISTENING = /DevTools listening on (ws:\/\/\S+)/;

/**
 * Launches Debian's Chromium with a loopback DevTools port (Playwright's launchServer speaks its own
 * protocol, not CDP, so the render pool's browsers cannot be relayed). Same flags and fail-closed
 * browser-wide proxy as the render pool's browsers (launch-args.ts); own process group, killed whole.
 */
export interface CdpLaunchOptions {
  /** An X display for a headful browser (headless=false); unset: headless. */
  display?: string;
  timeoutMs?: number;
}

export async function launchCdpBrowser(executablePath: string, marker: string, options: CdpLaunchOptions = {}): Promise<CdpBrowser> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const profile = await mkdtemp(join(tmpdir(), 'trawler-remote-'));
  // A headless shell (the obscura binary) is headless by itself and knows no --headless=new.
  const mode = options.display ? [] : isHeadlessShell(executablePath) ? [] : ['--headless=new'];
  const child: ChildProcess = spawn(
    executablePath,
    [...CHROMIUM_ARGS, markerArg(marker), `--proxy-server=${FAIL_CLOSED_PROXY}`, ...mode, '--remote-debugging-address=127.0.0.1', '--remote-debugging-port=0', `--user-data-dir=${profile}`, 'about:blank'],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'], env: options.display ? { ...process.env, DISPLAY: options.display } : process.env },
  );
  let dead = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => {
    dead = true;
    resolve();
  }));
  const kill = async (): Promise<void> => {
    dead = true;
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // ESRCH: the group is gone already.
    }
    await exited;
    await rm(profile, { recursive: true, force: true }).catch(() => undefined);
  };
  try {
    const endpoint = await new Promise<string>((resolve, reject) => {
      let text = '';
      const timer = setTimeout(() => reject(new Error('Chromium did not open its DevTools port in time')), timeoutMs);
      child.stderr!.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = LISTENING.exec(text);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once('exit', () => reject(new Error(`Chromium exited before opening its DevTools port: ${text.slice(-500)}`)));
    });
    child.stderr!.resume();
    return { endpoint, isDead: () => dead, kill };
  } catch (error) {
    await kill();
    throw error;
  }
}
