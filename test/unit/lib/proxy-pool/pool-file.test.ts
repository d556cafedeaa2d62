import { describe, expect, it } from 'vitest';
import { parsePoolFile, PoolFileError } from '../../../../lib/proxy-pool/pool-file.js';

describe('the pool file', () => {
  it('reads static exits and provider gateways from YAML as from JSON', () => {
    const yaml = `
exits:
  - url: http://user:p%40ss@10.0.0.5:3128
    tier: datacenter
    country: de
  - id: resi
    url: http://gw.example:7000
    username_template: customer-{user}-country-{country}-session-{session}
    password: s3cret
    tier: residential
    countries: [US, de]
    provider: bigresi
`;
    const [dc, gateway] = parsePoolFile(yaml);
    expect(dc).toMatchObject({ id: '10-0-0-5-3128', kind: 'static', tier: 'datacenter', countries: ['DE'], endpoint: 'http://10.0.0.5:3128' });
    expect(dc.urlFor('DE', 'x')).toBe('http://user:p%40ss@10.0.0.5:3128');
    expect(gateway).toMatchObject({ id: 'resi', kind: 'gateway', countries: ['US', 'DE'], provider: 'bigresi', endpoint: 'http://gw.example:7000' });
    expect(gateway.urlFor('DE', 'abc123')).toBe('http://customer--country-de-session-abc123:s3cret@gw.example:7000');
    expect(JSON.stringify(parsePoolFile(JSON.stringify({ exits: [{ url: 'socks5://h:1080', tier: 'residential', country: 'FR' }] })))).not.toContain('s3cret');
  });

  it('names what is wrong', () => {
    const bad = (exits: unknown[]): string => {
      try {
        parsePoolFile(JSON.stringify({ exits }));
      } catch (error) {
        expect(error).toBeInstanceOf(PoolFileError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(bad([{ url: 'http://h:1', tier: 'datacenter', colour: 'red' }])).toContain('colour');
    expect(bad([{ url: 'ftp://h:1', tier: 'datacenter' }])).toContain('scheme ftp');
    expect(bad([{ url: 'http://h:1', tier: 'premium' }])).toContain('exits.0.tier');
    expect(bad([{ url: 'http://h:1', tier: 'residential', username_template: 'u-{zone}', countries: ['US'] }])).toContain('{zone}');
    expect(bad([{ url: 'http://h:1', tier: 'residential', countries: ['US', 'DE'] }])).toContain('provider gateway');
    expect(bad([{ url: 'http://h:1', tier: 'residential' }, { url: 'http://u:p@h:1', tier: 'datacenter' }])).toContain('two exits have the id h-1');
    expect(bad([{ url: 'http://h:1', tier: 'residential', country: 'Germany' }])).toContain('ISO 3166-1');
  });
});
