import { afterAll, beforeAll } from 'vitest';
import { startEmbedded, type EmbeddedOptions, type EmbeddedService } from './embedded.js';

/**
 * The one way a suite starts its service: `startEmbedded(options)` before the suite's tests and
 * stopped after them. The object returned reads through to the service once it is started.
 * `options` may be a function, called in the suite's `beforeAll` after the hooks registered before
 * this call (a model server, a PostgreSQL database, limits the suite holds), for options that
 * depend on what those started.
 */
export function embeddedForSuite(options: EmbeddedOptions | (() => EmbeddedOptions | Promise<EmbeddedOptions>) = {}): EmbeddedService {
  return forSuite(async () => startEmbedded(typeof options === 'function' ? await options() : options));
}

/**
 * What `start` starts (a service built on `startEmbedded`, such as test/support/pool-service.ts's),
 * started in the suite's `beforeAll` and stopped in its `afterAll`, read through the object returned.
 */
export function forSuite<T extends { stop(): Promise<void> }>(start: () => Promise<T>): T {
  let started: T | null = null;
  beforeAll(async () => {
    started = await start();
  });
  afterAll(async () => started?.stop());
  return new Proxy({} as T, {
    get(_target, name) {
      if (!started) throw new Error('the suite service starts in beforeAll; read it in a hook or a test');
      return Reflect.get(started, name) as unknown;
    },
  });
}
