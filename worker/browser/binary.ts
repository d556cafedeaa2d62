import { accessSync, constants, readdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type BrowserEngineName = 'obscura' | 'chromium';

/**
 * Debian ships `/usr/bin/chromium*` as shell wrappers; the real binaries under /usr/lib/chromium
 * come first so the browser is our direct child and its process group is the one we kill.
 */
const SYSTEM_CANDIDATES: Record<BrowserEngineName, string[]> = {
  obscura: [
    '/usr/lib/chromium/chromium-headless-shell',
    '/usr/bin/chromium-headless-shell',
    '/usr/lib/chromium/chromium',
    '/usr/bin/chromium',
  ],
  chromium: ['/usr/lib/chromium/chromium', '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'],
};

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Browsers Playwright itself installed (`~/.cache/ms-playwright` or PLAYWRIGHT_BROWSERS_PATH). */
function playwrightCacheCandidates(engine: BrowserEngineName, env: NodeJS.ProcessEnv): string[] {
  const root = env.PLAYWRIGHT_BROWSERS_PATH || join(env.HOME || homedir(), '.cache', 'ms-playwright');
  let entries: string[];
  try {
    entries = readdirSync(root).sort().reverse();
  } catch {
    return [];
  }
  const shells = entries
    .filter((e) => e.startsWith('chromium_headless_shell-'))
    .map((e) => join(root, e, 'chrome-linux', 'headless_shell'));
  const fulls = entries.filter((e) => /^chromium-\d+$/.test(e)).map((e) => join(root, e, 'chrome-linux', 'chrome'));
  return engine === 'obscura' ? [...shells, ...fulls] : fulls;
}

/**
 * The browser binary an engine would run on this machine, or null when none is installed (the
 * engine is then not deployed). `OBSCURA_PATH` / `CHROMIUM_PATH` win when set and executable.
 */
export function findBrowserBinary(engine: BrowserEngineName, env: NodeJS.ProcessEnv): string | null {
  const explicit = engine === 'obscura' ? env.OBSCURA_PATH : env.CHROMIUM_PATH;
  if (explicit) return isExecutable(explicit) ? explicit : null;
  const candidates = [...SYSTEM_CANDIDATES[engine], ...playwrightCacheCandidates(engine, env)];
  return candidates.find(isExecutable) ?? null;
}

/** Whether a binary is a headless shell (old headless only: no `--headless=new`, no headful). */
export function isHeadlessShell(path: string): boolean {
  return /headless[_-]shell/.test(path);
}
