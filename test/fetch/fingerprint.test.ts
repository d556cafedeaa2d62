import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { IMPIT_BROWSER } from '../../worker/fetch/impit-client.js';
import { startCaptureServer, visitWithChromium, type CaptureServer, type CapturedRequest } from './client-hello-capture.js';
import { engineContext, fetchJob } from './helpers.js';

/**
 * Chrome's client-hint brand list for a major version (components/embedder_support/user_agent_utils.cc):
 * the GREASE brand's characters, its version and the order of the three brands all follow from the major.
 */
function chromeBrandList(major: number, brand: string): string {
  const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
  const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
  const grease = `"Not${chars[major % 11]}A${chars[(major + 1) % 11]}Brand";v="${['8', '99', '24'][major % 3]}"`;
  const entries = [grease, `"Chromium";v="${major}"`, `"${brand}";v="${major}"`];
  const list: string[] = [];
  orders[major % 6]!.forEach((slot, i) => (list[slot] = entries[i]!));
  return list.join(', ');
}

const workDir = mkdtempSync(join(tmpdir(), 'trawler-fingerprint-'));
let capture: CaptureServer;
let guard: EgressGuard;
let fetchTier: CapturedRequest;
let chromium: CapturedRequest;

beforeAll(async () => {
  capture = await startCaptureServer(workDir);
  // impit reads the platform trust store, which SSL_CERT_FILE replaces: the fetch tier trusts this server only.
  process.env.SSL_CERT_FILE = capture.certificateFile;
  const policy = { allowLoopback: true };
  guard = await EgressGuard.start({ policy });
  const engine = new FetchEngine({ guard, policy });
  const page = await engine.fetch(fetchJob({ url: `${capture.url}fetch-tier`, impersonate: true }), engineContext());
  expect(page.status).toBe(200);
  await visitWithChromium(`${capture.url}chromium`, join(workDir, 'profile'));
  fetchTier = capture.requests.find((r) => r.path === '/fetch-tier')!;
  chromium = capture.requests.find((r) => r.path === '/chromium')!;
  expect(fetchTier).toBeDefined();
  expect(chromium).toBeDefined();
}, 60_000);

afterAll(async () => {
  delete process.env.SSL_CERT_FILE;
  await guard?.close();
  await capture?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('impersonate=true against the Chromium installed here', () => {
  it('sends the same cipher suites, extension set, supported groups and ALPN, with GREASE ciphers and groups', () => {
    expect(fetchTier.hello.cipherSuites).toEqual(chromium.hello.cipherSuites);
    expect(fetchTier.hello.extensions).toEqual(chromium.hello.extensions);
    expect(fetchTier.hello.supportedGroups).toEqual(chromium.hello.supportedGroups);
    expect(fetchTier.hello.alpn).toEqual(chromium.hello.alpn);
    expect(fetchTier.hello.greaseCipher && chromium.hello.greaseCipher).toBe(true);
    expect(fetchTier.hello.greaseGroup && chromium.hello.greaseGroup).toBe(true);
  });

  it('sends the same signature algorithms in the same order (GREASE aside), so JA4 is the same; what still differs is listed', () => {
    const withoutGrease = (list: string[]) => list.filter((a) => a !== 'GREASE');
    expect(withoutGrease(fetchTier.hello.signatureAlgorithms)).toEqual(withoutGrease(chromium.hello.signatureAlgorithms));
    expect(fetchTier.hello.signatureAlgorithms).toEqual(expect.arrayContaining(['0x0904', '0x0905', '0x0906']));
    expect(fetchTier.hello.ja4).toBe(chromium.hello.ja4);
    const differences = Object.fromEntries(
      (['greaseExtensions', 'greaseVersion', 'greaseSignatureAlgorithm'] as const)
        .filter((field) => fetchTier.hello[field] !== chromium.hello[field])
        .map((field) => [field, { fetchTier: fetchTier.hello[field], chromium: chromium.hello[field] }]),
    );
    console.info(`ClientHello fields that still differ (docs/fetch-engine.md, "Fingerprint"): ${JSON.stringify(differences)}`);
  });

  it('sends a User-Agent, client hints and header order of the one Chrome version it impersonates', () => {
    const major = Number(IMPIT_BROWSER.replace('chrome', ''));
    const headers = fetchTier.headers;
    const uaMajor = Number(/ Chrome\/(\d+)\.0\.0\.0 Safari\/537\.36$/.exec(headers['user-agent'] ?? '')?.[1]);
    expect(uaMajor).toBe(major);
    expect(headers['sec-ch-ua']).toBe(chromeBrandList(major, 'Google Chrome'));
    expect(headers['sec-ch-ua-mobile']).toBe('?0');
    const platform = { Windows: 'Windows NT 10.0; Win64; x64', macOS: 'Macintosh; Intel Mac OS X 10_15_7', Linux: 'X11; Linux x86_64' };
    const declared = JSON.parse(headers['sec-ch-ua-platform'] ?? 'null') as keyof typeof platform;
    expect(headers['user-agent']).toContain(`(${platform[declared]})`);
    // The rule checked against the installed Chromium too, so the test's copy of it is not wrong.
    const chromiumMajor = Number(/HeadlessChrome\/(\d+)\./.exec(chromium.headers['user-agent'] ?? '')?.[1]);
    expect(chromium.headers['sec-ch-ua']).toBe(chromeBrandList(chromiumMajor, 'HeadlessChrome'));
    // Navigation headers in Chromium's order (headers one of them does not send are left out).
    const shared = (order: string[], other: string[]) => order.filter((name) => other.includes(name));
    expect(shared(fetchTier.headerOrder, chromium.headerOrder)).toEqual(shared(chromium.headerOrder, fetchTier.headerOrder));
    expect(shared(chromium.headerOrder, fetchTier.headerOrder).length).toBeGreaterThanOrEqual(15);
    for (const name of ['accept', 'accept-encoding', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-user', 'sec-fetch-dest', 'upgrade-insecure-requests', 'priority']) {
      expect(headers[name], name).toBeDefined();
    }
  });
});
