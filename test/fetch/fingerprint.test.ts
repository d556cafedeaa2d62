import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../worker/egress/guard.js';
import { FetchEngine } from '../../worker/fetch/fetch-engine.js';
import { IMPIT_BROWSER } from '../../worker/fetch/impit-client.js';
import { startCaptureServer, visitWithChromium, type CaptureServer, type CapturedRequest } from './client-hello-capture.js';
import { engineContext, fetchJob } from './fetch-engine.js';

/**
 * Chrome's client-hint brand list for a major version (components/embedder_support/user_agent_utils.cc):
 * the GREASE brand's characters, its version and the order of the brands all follow from the major.
 * A plain Chromium build has no brand of its own: two entries instead of three.
 */
function chromeBrandList(major: number, brand: string | null): string {
  const chars = [' ', '(', ':', '-', '.', '/', ')', ';', '=', '?', '_'];
  const grease = `"Not${chars[major % 11]}A${chars[(major + 1) % 11]}Brand";v="${['8', '99', '24'][major % 3]}"`;
  const entries = [grease, `"Chromium";v="${major}"`, ...(brand ? [`"${brand}";v="${major}"`] : [])];
  const orders = entries.length === 3 ? [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]] : [[0, 1], [1, 0]];
  const list: string[] = [];
  orders[major % orders.length]!.forEach((slot, i) => (list[slot] = entries[i]!));
  return list.join(', ');
}

const workDir = mkdtempSync(join(tmpdir(), 'trawler-fingerprint-'));
let capture: CaptureServer;
let guard: EgressGuard;
let fetchTier: CapturedRequest;
/** The browser (`chromium --headless`): what a Chrome user's handshake looks like. */
let chromium: CapturedRequest;
/** chromium-headless-shell, the same network stack without the browser's feature defaults. */
let shell: CapturedRequest;

beforeAll(async () => {
  capture = await startCaptureServer(workDir);
  // impit reads the platform trust store, which SSL_CERT_FILE replaces: the fetch tier trusts this server only.
  process.env.SSL_CERT_FILE = capture.certificateFile;
  const policy = { allowLoopback: true };
  guard = await EgressGuard.start({ policy });
  const engine = new FetchEngine({ guard, policy });
  const page = await engine.fetch(fetchJob({ url: `${capture.url}fetch-tier`, impersonate: true }), engineContext());
  expect(page.status).toBe(200);
  await visitWithChromium('chromium', `${capture.url}chromium`, join(workDir, 'browser-profile'));
  await visitWithChromium('chromium-headless-shell', `${capture.url}shell`, join(workDir, 'shell-profile'));
  const captured = (path: string) => {
    const request = capture.requests.find((r) => r.path === path);
    if (!request) throw new Error(`no request for ${path} reached the capture server`);
    return request;
  };
  fetchTier = captured('/fetch-tier');
  chromium = captured('/chromium');
  shell = captured('/shell');
}, 120_000);

afterAll(async () => {
  delete process.env.SSL_CERT_FILE;
  await guard?.close();
  await capture?.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('impersonate=true against the Chromium installed here (chromium --headless and chromium-headless-shell)', () => {
  it('sends the same cipher suites, supported groups, signature algorithms (GREASE aside) and ALPN as both builds', () => {
    const withoutGrease = (list: string[]) => list.filter((a) => a !== 'GREASE');
    for (const browser of [chromium, shell]) {
      expect(fetchTier.hello.cipherSuites).toEqual(browser.hello.cipherSuites);
      expect(fetchTier.hello.supportedGroups).toEqual(browser.hello.supportedGroups);
      expect(withoutGrease(fetchTier.hello.signatureAlgorithms)).toEqual(withoutGrease(browser.hello.signatureAlgorithms));
      expect(fetchTier.hello.alpn).toEqual(browser.hello.alpn);
      expect(fetchTier.hello.greaseCipher && browser.hello.greaseCipher).toBe(true);
      expect(fetchTier.hello.greaseGroup && browser.hello.greaseGroup).toBe(true);
    }
    expect(fetchTier.hello.signatureAlgorithms).toEqual(expect.arrayContaining(['0x0904', '0x0905', '0x0906']));
  });

  it("sends the headless shell's extension set, hence its JA4, and a subset of the browser's; what still differs is listed", () => {
    expect(fetchTier.hello.extensions).toEqual(shell.hello.extensions);
    expect(fetchTier.hello.ja4).toBe(shell.hello.ja4);
    expect(chromium.hello.extensions).toEqual(expect.arrayContaining(fetchTier.hello.extensions));
    const differences: Record<string, unknown> = {
      extensionsOnlyTheBrowserSends: chromium.hello.extensions.filter((e) => !fetchTier.hello.extensions.includes(e)),
      ja4: { fetchTier: fetchTier.hello.ja4, chromium: chromium.hello.ja4 },
    };
    for (const field of ['greaseExtensions', 'greaseVersion', 'greaseSignatureAlgorithm'] as const) {
      if (fetchTier.hello[field] !== chromium.hello[field]) differences[field] = { fetchTier: fetchTier.hello[field], chromium: chromium.hello[field] };
    }
    console.info(`ClientHello fields that still differ from chromium --headless (docs/fetch-engine.md, "Fingerprint"): ${JSON.stringify(differences)}`);
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
    for (const [browser, brand] of [[chromium, null], [shell, 'HeadlessChrome']] as const) {
      const browserMajor = Number(/HeadlessChrome\/(\d+)\./.exec(browser.headers['user-agent'] ?? '')?.[1]);
      expect(browser.headers['sec-ch-ua']).toBe(chromeBrandList(browserMajor, brand));
    }
    // Navigation headers in Chromium's order (headers one of them does not send are left out).
    const shared = (order: string[], other: string[]) => order.filter((name) => other.includes(name));
    expect(shared(fetchTier.headerOrder, chromium.headerOrder)).toEqual(shared(chromium.headerOrder, fetchTier.headerOrder));
    expect(shared(chromium.headerOrder, fetchTier.headerOrder).length).toBeGreaterThanOrEqual(15);
    for (const name of ['accept', 'accept-encoding', 'sec-fetch-site', 'sec-fetch-mode', 'sec-fetch-user', 'sec-fetch-dest', 'upgrade-insecure-requests', 'priority']) {
      expect(headers[name], name).toBeDefined();
    }
  });
});
