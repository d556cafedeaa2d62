import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { calculateJa4, getExtensionData, isGREASE, trackClientHellos, type TlsClientHelloMessage } from 'read-tls-client-hello';
import { generate } from 'selfsigned';

/** The parts of a ClientHello that fingerprinting compares; GREASE values (random per connection) as "GREASE". */
export interface HelloSummary {
  cipherSuites: string[];
  extensions: string[];
  supportedGroups: string[];
  signatureAlgorithms: string[];
  alpn: string[];
  greaseCipher: boolean;
  greaseExtensions: number;
  greaseGroup: boolean;
  greaseVersion: boolean;
  greaseSignatureAlgorithm: boolean;
  ja4: string;
}

export interface CapturedRequest {
  path: string;
  hello: HelloSummary;
  /** Header names in the order they arrived (HTTP/2 pseudo-headers included). */
  headerOrder: string[];
  headers: Record<string, string>;
}

const hex = (value: number) => (isGREASE(value) ? 'GREASE' : `0x${value.toString(16).padStart(4, '0')}`);

export function summarize(hello: TlsClientHelloMessage): HelloSummary {
  const groups = (getExtensionData(hello, 10) as { groups?: number[] } | null | undefined)?.groups ?? [];
  const algorithms = (getExtensionData(hello, 13) as { algorithms?: number[] } | null | undefined)?.algorithms ?? [];
  const protocols = (getExtensionData(hello, 16) as { protocols?: string[] } | null | undefined)?.protocols ?? [];
  const versions = (getExtensionData(hello, 43) as { versions?: number[] } | null | undefined)?.versions ?? [];
  return {
    cipherSuites: hello.cipherSuites.filter((c) => !isGREASE(c)).map(hex),
    extensions: hello.extensions.filter((e) => !isGREASE(e.id)).map((e) => hex(e.id)).sort(),
    supportedGroups: groups.map(hex),
    signatureAlgorithms: algorithms.map(hex),
    alpn: protocols,
    greaseCipher: hello.cipherSuites.some(isGREASE),
    greaseExtensions: hello.extensions.filter((e) => isGREASE(e.id)).length,
    greaseGroup: groups.some(isGREASE),
    greaseVersion: versions.some(isGREASE),
    greaseSignatureAlgorithm: algorithms.some(isGREASE),
    ja4: calculateJa4(hello),
  };
}

export interface CaptureServer {
  /** `https://127.0.0.1:port/`; the certificate is self-signed for 127.0.0.1. */
  url: string;
  /** PEM file of the self-signed certificate, for clients told to trust it. */
  certificateFile: string;
  requests: CapturedRequest[];
  close(): Promise<void>;
}

/** An HTTPS (h2 and http/1.1) server on loopback that records each request's ClientHello and header order. */
export async function startCaptureServer(directory: string): Promise<CaptureServer> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: [{ type: 7, ip: '127.0.0.1' }] }],
  });
  const certificateFile = join(directory, 'capture-ca.pem');
  writeFileSync(certificateFile, pems.cert);
  const requests: CapturedRequest[] = [];
  const server = trackClientHellos(http2.createSecureServer({ key: pems.private, cert: pems.cert, allowHTTP1: true })) as http2.Http2SecureServer;
  server.on('request', (req: http2.Http2ServerRequest, res: http2.Http2ServerResponse) => {
    const hello = (req.socket as { tlsClientHello?: TlsClientHelloMessage }).tlsClientHello;
    if (hello) {
      const names = req.rawHeaders.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase());
      const headers = Object.fromEntries(names.map((name, i) => [name, req.rawHeaders[2 * i + 1]!]));
      requests.push({ path: req.url, hello: summarize(hello), headerOrder: names, headers });
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>captured</body></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    certificateFile,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Debian's two builds: the browser itself (run headless) and the headless shell, its trimmed sibling. */
export type ChromiumBuild = 'chromium' | 'chromium-headless-shell';

/** Loads `url` once in a headless Chromium (certificate errors ignored) and waits for it to exit. */
export async function visitWithChromium(build: ChromiumBuild, url: string, userDataDir: string): Promise<void> {
  const args = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run', '--ignore-certificate-errors', `--user-data-dir=${userDataDir}`, '--dump-dom', url];
  const child = spawn(`/usr/bin/${build}`, build === 'chromium' ? ['--headless', ...args] : args, { stdio: 'ignore' });
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', resolve);
  });
  if (code !== 0) throw new Error(`${build} exited with ${code}`);
}
