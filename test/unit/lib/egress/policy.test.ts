import { describe, expect, it } from 'vitest';
import { ServiceError } from '../../../../lib/errors/index.js';
import { DEFAULT_EGRESS_POLICY, checkProxyUrl, checkTargetUrl, classifyAddress, isAddressAllowed, resolveAllowed } from '../../../../lib/egress/policy.js';

const loopbackAllowed = { allowLoopback: true };

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ServiceError) return error.code;
    throw error;
  }
  return 'none';
}

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique-local'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['100.64.0.1', 'cgnat'],
    ['198.18.0.1', 'benchmarking'],
    ['192.0.2.1', 'documentation'],
    ['2001:db8::1', 'documentation'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::7f00:1', 'nat64 (embeds loopback)'],
    ['64:ff9b::808:808', 'public'],
    ['::7f00:1', 'ipv4-compatible (embeds loopback)'],
    ['::808:808', 'ipv4-compatible'],
    ['::1:0:0:1', 'reserved'],
    ['4000::1', 'reserved'],
  ])('%s is %s', (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  it('refuses 6to4 and Teredo, naming an embedded private address', () => {
    expect(classifyAddress('2002:7f00:1::1')).toBe('6to4 (embeds loopback)');
    expect(classifyAddress('2002:808:808::1')).toBe('6to4');
    expect(classifyAddress('2001:0:4136:e378:8000:63bf:80ff:fffe')).toMatch(/^teredo/);
  });
});

describe('isAddressAllowed', () => {
  it('allows exactly 127.0.0.1 when loopback is allowed, nothing else local', () => {
    expect(isAddressAllowed('127.0.0.1', DEFAULT_EGRESS_POLICY)).toBe(false);
    expect(isAddressAllowed('127.0.0.1', loopbackAllowed)).toBe(true);
    for (const ip of ['127.0.0.2', '::1', '::ffff:127.0.0.1', '10.0.0.1', '0.0.0.0']) {
      expect(isAddressAllowed(ip, loopbackAllowed)).toBe(false);
    }
  });
});

describe('checkTargetUrl', () => {
  it.each([
    'http://127.0.0.2/',
    'http://2130706434/',
    'http://0177.0.0.2/',
    'http://0x7f.0.0.2/',
    'http://0x7f000002/',
    'http://127.2/',
    'http://[::ffff:127.0.0.2]/',
    'http://[0:0:0:0:0:ffff:7f00:2]/',
    'http://[64:ff9b::7f00:2]/',
    'http://[2002:7f00:2::1]/',
    'http://[::1]/',
    'http://[::]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://localhost/',
    'http://LOCALHOST./',
    'http://api.localhost/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[fd00::1]/',
    'https://\u2460\u2461\u2466.0.0.2/',
  ])('blocks %s', (url) => {
    expect(codeOf(() => checkTargetUrl(url, loopbackAllowed))).toBe('ERR::SECURITY::SSRF_BLOCKED');
  });

  it('blocks 127.0.0.1 unless the test setting allows it', () => {
    expect(codeOf(() => checkTargetUrl('http://127.0.0.1:8080/', DEFAULT_EGRESS_POLICY))).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(checkTargetUrl('http://127.0.0.1:8080/x', loopbackAllowed).href).toBe('http://127.0.0.1:8080/x');
    expect(codeOf(() => checkTargetUrl('http://2130706433/', DEFAULT_EGRESS_POLICY))).toBe('ERR::SECURITY::SSRF_BLOCKED');
  });

  it.each(['not a url', 'ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'http://user:pw@example.com/', 'http://example.com:0/'])(
    'refuses %s as INVALID_URL',
    (url) => {
      expect(codeOf(() => checkTargetUrl(url, DEFAULT_EGRESS_POLICY))).toBe('ERR::SECURITY::INVALID_URL');
    },
  );

  it('accepts public hosts', () => {
    expect(checkTargetUrl('https://example.com/a?b=1', DEFAULT_EGRESS_POLICY).hostname).toBe('example.com');
    expect(checkTargetUrl('http://8.8.8.8/', DEFAULT_EGRESS_POLICY).hostname).toBe('8.8.8.8');
  });
});

describe('checkProxyUrl', () => {
  it('accepts http, https, socks5 and socks5h with credentials', () => {
    for (const scheme of ['http', 'https', 'socks5', 'socks5h']) {
      expect(checkProxyUrl(`${scheme}://u:p@proxy.example.com:1080`, DEFAULT_EGRESS_POLICY).protocol).toBe(`${scheme}:`);
    }
  });

  it('refuses other schemes as INVALID_PARAMETER and private hosts as SSRF_BLOCKED', () => {
    expect(codeOf(() => checkProxyUrl('socks4://proxy.example.com:1080', DEFAULT_EGRESS_POLICY))).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(codeOf(() => checkProxyUrl('nonsense', DEFAULT_EGRESS_POLICY))).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(codeOf(() => checkProxyUrl('http://proxy.example.com:0', DEFAULT_EGRESS_POLICY))).toBe('ERR::REQUEST::INVALID_PARAMETER');
    expect(codeOf(() => checkProxyUrl('http://localhost:3128', DEFAULT_EGRESS_POLICY))).toBe('ERR::SECURITY::SSRF_BLOCKED');
    expect(codeOf(() => checkProxyUrl('http://192.168.0.10:3128', DEFAULT_EGRESS_POLICY))).toBe('ERR::SECURITY::SSRF_BLOCKED');
  });
});

describe('resolveAllowed', () => {
  it('checks every address of a name', async () => {
    const lookup = async () => ['127.0.0.1', '127.0.0.2'];
    await expect(resolveAllowed('mixed.test', loopbackAllowed, lookup)).rejects.toMatchObject({ code: 'ERR::SECURITY::SSRF_BLOCKED' });
    await expect(resolveAllowed('ok.test', loopbackAllowed, async () => ['127.0.0.1'])).resolves.toEqual(['127.0.0.1']);
  });

  it('maps lookup failures and empty answers to DNS_FAILED', async () => {
    const failing = async (): Promise<string[]> => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' });
    };
    await expect(resolveAllowed('nowhere.test', loopbackAllowed, failing)).rejects.toMatchObject({ code: 'ERR::UPSTREAM::DNS_FAILED' });
    await expect(resolveAllowed('empty.test', loopbackAllowed, async () => [])).rejects.toMatchObject({ code: 'ERR::UPSTREAM::DNS_FAILED' });
  });
});
