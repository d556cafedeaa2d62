import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let exit: ExitServer;

beforeAll(async () => {
  target = await startExitTarget();
  exit = await startStaticExit({ address: '127.0.0.80' });
});

afterAll(async () => {
  await Promise.all([target?.close(), exit?.close()]);
});
// `localhost` is refused as a caller's proxy host; the deployment's own exits are trusted.
const service = poolServiceForSuite(() => [{ id: 'local', url: `http://localhost:${exit.port}`, tier: 'residential', country: 'DE' }]);

describe('SSRF through pool exits', () => {
  it('reaches the target through an exit on a private (loopback) address: exits are trusted', async () => {
    const response = await service.scrape({ url: target.url, premium_proxy: true });
    expect(response.status).toBe(200);
    expect(target.seen().at(-1)).toBe('127.0.0.80');
  });

  it('still refuses a private, reserved or localhost target through an exit before sending', async () => {
    const requestsBefore = exit.requests();
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://127.0.0.2:8080/', 'http://localhost/']) {
      const response = await service.scrape({ url, premium_proxy: true });
      expect(response.status, url).toBe(400);
      expect(response.headers.get('x-credits-charged')).toBe('0');
      expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
    }
    expect(exit.requests()).toBe(requestsBefore);
  });

  it("leaves a name this worker cannot resolve to the exit's own DNS (docs/ssrf.md, \"Pool exits\")", async () => {
    const requestsBefore = exit.requests();
    const response = await service.scrape({ url: 'http://no-such-host.invalid/', premium_proxy: true });
    expect(response.status).toBe(502);
    expect(exit.requests()).toBe(requestsBefore + 1);
  });

  it('still refuses a loopback caller proxy (own proxy stays checked)', async () => {
    const response = await service.scrape({ url: target.url, proxy: `http://localhost:${exit.port}` });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { code: string }).code).toBe('ERR::SECURITY::SSRF_BLOCKED');
  });
});
