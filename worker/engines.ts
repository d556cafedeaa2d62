import type { Config } from '../lib/config.js';
import type { EgressPolicy } from '../lib/egress/policy.js';
import { DEPLOYABLE_ENGINES, type EngineName } from '../lib/protocol/index.js';
import { BrowserEngine, findBrowserBinary } from './browser/render-engine.js';
import type { EgressGuard } from './egress/guard.js';
import type { Engine } from './engine.js';
import { FetchEngine } from './fetch/fetch-engine.js';

export interface EngineDeps {
  config: Config;
  guard: EgressGuard;
  policy: EgressPolicy;
}

/** Whether this machine can run the engine (a browser binary for the render engines). */
export function canRun(engine: EngineName, config: Config): boolean {
  if (engine === 'fetch') return true;
  if (engine === 'camoufox') return false;
  if (engine === 'obscura' && config.OBSCURA_CDP_URL) return true;
  return findBrowserBinary(engine, envFor(config)) !== null;
}

export function createEngine(engine: EngineName, deps: EngineDeps): Engine {
  const capacity = deps.config.WORKER_CAPACITY;
  switch (engine) {
    case 'fetch':
      return new FetchEngine({ guard: deps.guard, policy: deps.policy, capacity: capacity ?? 16 });
    case 'obscura':
    case 'chromium': {
      const executablePath = findBrowserBinary(engine, envFor(deps.config)) ?? undefined;
      return new BrowserEngine({
        name: engine,
        guard: deps.guard,
        capacity: capacity ?? 2,
        executablePath,
        cdpEndpoint: engine === 'obscura' ? deps.config.OBSCURA_CDP_URL : undefined,
      });
    }
    case 'camoufox':
      throw new Error('camoufox is not deployable in this build');
  }
}

/** Embedded mode: `auto` means fetch plus every render engine whose browser is on this machine. */
export function embeddedEngines(config: Config): EngineName[] {
  if (config.EMBEDDED_ENGINES.trim() !== 'auto') {
    return config.EMBEDDED_ENGINES.split(',').map((e) => e.trim()).filter((e): e is EngineName =>
      (DEPLOYABLE_ENGINES as readonly string[]).includes(e),
    );
  }
  return DEPLOYABLE_ENGINES.filter((engine) => canRun(engine, config));
}

function envFor(config: Config): NodeJS.ProcessEnv {
  return { CHROMIUM_PATH: config.CHROMIUM_PATH, OBSCURA_PATH: config.OBSCURA_PATH };
}
