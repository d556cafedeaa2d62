import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startExitTarget, startStaticExit, type ExitServer, type ExitTarget } from '../support/pool-exits.js';
import { poolServiceForSuite } from '../support/pool-service.js';

let target: ExitTarget;
let exits: ExitServer[];

beforeAll(async () => {
  target = await startExitTarget();
  exits = await Promise.all([startStaticExit({ address: '127.0.0.70' }), startStaticExit({ address: '127.0.0.71' })]);
});

afterAll(async () => {
  await Promise.all([target?.close(), ...(exits ?? []).map((e) => e.close())]);
});
const service = poolServiceForSuite(() => [
  { id: 'de-resi', url: exits[0].url, tier: 'residential', country: 'DE' },
  { id: 'jp-dc', url: exits[1].url, tier: 'datacenter', country: 'JP' },
], { engines: ['fetch', 'obscura', 'chromium'] });

describe('browser renders through pool exits', () => {
  it("renders through the residential exit of proxy_country with that country's timezone and locale", async () => {
    const response = await service.scrape({ url: target.geoUrl, engine: 'chromium', premium_proxy: true, proxy_country: 'DE', wait_for: '#geo' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('32');
    expect(await response.text()).toContain('Europe/Berlin de-DE');
    expect(target.seen().at(-1)).toBe('127.0.0.70');
  });

  it("takes the timezone and locale from the assigned exit's country without proxy_country", async () => {
    const response = await service.scrape({ url: target.geoUrl, engine: 'chromium' });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('8');
    expect(await response.text()).toContain('Asia/Tokyo ja-JP');
    expect(target.seen().at(-1)).toBe('127.0.0.71');
  });

  it("renders with obscura through the residential exit, at obscura's residential price, with the country's timezone and locale", async () => {
    const response = await service.scrape({ url: target.geoUrl, engine: 'obscura', premium_proxy: true, proxy_country: 'DE', wait_for: '#geo' });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('25');
    expect(await response.text()).toContain('Europe/Berlin de-DE');
    expect(target.seen().at(-1)).toBe('127.0.0.70');
    const entry = await service.logEntry(response.headers.get('x-request-id'));
    expect(entry).toMatchObject({ engine: 'obscura', proxy: { source: 'pool', endpoint_id: 'de-resi', country: 'DE', requested_tier: 'residential' } });
  });

  it('renders with obscura (js_render) through the datacenter exit at the datacenter price', async () => {
    const response = await service.scrape({ url: target.url, js_render: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-credits-charged')).toBe('3');
    expect(await response.text()).toContain('127.0.0.71');
    expect(target.seen().at(-1)).toBe('127.0.0.71');
  });
});
