import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { CHALLENGE_PAGES } from './challenge-pages.js';
import { listenOnLoopback, proxyUrl, startSocksServer, tunnel } from './loopback-proxy.js';

/**
 * Loopback stand-ins for a deployment's proxy exits. Each exit opens its outgoing connections from
 * its own 127.0.0.x source address, so the target (exitTarget below) can tell which exit a request
 * left through, as a real site sees an exit's IP.
 */
export interface ExitServer {
  /** Proxy URL with credentials when it has them: `http://u:p@127.0.0.1:port`. */
  url: string;
  port: number;
  /** The source address its outgoing connections use. */
  address: string;
  /** CONNECT or SOCKS requests it received (refused ones included). */
  requests(): number;
  /** Usernames it was sent, in order (provider gateways). */
  usernames(): string[];
  close(): Promise<void>;
}

export interface ExitOptions {
  /** 127.0.0.x source address of its outgoing connections. */
  address: string;
  auth?: { user: string; pass: string };
  /** Answer every CONNECT with this status instead (407: refused credentials; 429: provider rate limit). */
  refuseWith?: 407 | 429;
}

function credentialsOf(req: http.IncomingMessage): { user: string; pass: string } | null {
  const match = /^Basic\s+(\S+)$/i.exec(req.headers['proxy-authorization'] ?? '');
  if (!match) return null;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon === -1 ? null : { user: decoded.slice(0, colon), pass: decoded.slice(colon + 1) };
}

/**
 * An HTTP CONNECT proxy. `route` decides, per request, the source address to leave from, or a
 * refusal status (the provider gateway reads its username).
 */
async function startConnectProxy(route: (req: http.IncomingMessage) => { address: string } | { status: number; reason: string }, urlAuth?: { user: string; pass: string }): Promise<ExitServer & { server: http.Server }> {
  let requests = 0;
  const usernames: string[] = [];
  const server = http.createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    requests += 1;
    client.on('error', () => client.destroy());
    const user = credentialsOf(req)?.user;
    if (user !== undefined) usernames.push(user);
    const decided = route(req);
    if ('status' in decided) {
      const extra = decided.status === 407 ? 'Proxy-Authenticate: Basic realm="exit"\r\n' : '';
      client.end(`HTTP/1.1 ${decided.status} ${decided.reason}\r\n${extra}Content-Length: 0\r\n\r\n`);
      return;
    }
    tunnel(client, head, req.url ?? '', decided.address);
  });
  const listening = await listenOnLoopback(server);
  return {
    server,
    url: proxyUrl('http', listening.port, urlAuth),
    port: listening.port,
    address: '',
    requests: () => requests,
    usernames: () => [...usernames],
    close: listening.close,
  };
}

/** A static exit: one HTTP CONNECT proxy leaving from one address, optionally with credentials. */
export async function startStaticExit(options: ExitOptions): Promise<ExitServer> {
  const proxy = await startConnectProxy((req) => {
    if (options.refuseWith === 407) return { status: 407, reason: 'Proxy Authentication Required' };
    if (options.refuseWith === 429) return { status: 429, reason: 'Too Many Requests' };
    if (options.auth) {
      const given = credentialsOf(req);
      if (!given || given.user !== options.auth.user || given.pass !== options.auth.pass) return { status: 407, reason: 'Proxy Authentication Required' };
    }
    return { address: options.address };
  }, options.auth);
  return { ...proxy, address: options.address };
}

/**
 * A provider-style gateway: the username `cust-{country}-sess-{session}` picks the country (each has
 * its own addresses) and, by the session token, one of that country's addresses, as residential
 * providers keep a sticky IP per session. Password `secret`.
 */
export async function startProviderGateway(countries: Record<string, string[]>): Promise<ExitServer> {
  const proxy = await startConnectProxy((req) => {
    const given = credentialsOf(req);
    const match = given && given.pass === 'secret' ? /^cust-([a-z]{2})-sess-([a-z0-9]+)$/.exec(given.user) : null;
    if (!match) return { status: 407, reason: 'Proxy Authentication Required' };
    const addresses = countries[match[1].toUpperCase()];
    if (!addresses) return { status: 502, reason: 'No Exit In Country' };
    const index = createHash('sha256').update(match[2]).digest().readUInt32BE(0) % addresses.length;
    return { address: addresses[index] };
  });
  return { ...proxy, address: '' };
}

/** A SOCKS5 exit (no authentication) leaving from one address. */
export async function startSocksExit(address: string): Promise<ExitServer> {
  let requests = 0;
  const server = await startSocksServer({ localAddress: address, onConnect: () => (requests += 1) });
  return {
    url: proxyUrl('socks5', server.port),
    port: server.port,
    address,
    requests: () => requests,
    usernames: () => [],
    close: server.close,
  };
}

/** A port nothing listens on: an exit that is down. */
export async function deadPort(): Promise<number> {
  const server = await listenOnLoopback(net.createServer());
  await server.close();
  return server.port;
}

export interface ExitTarget {
  url: string;
  /** A page whose script writes the browser's timezone and language into `#geo`. */
  geoUrl: string;
  /** The source address of every request that reached the page, in order. */
  seen(): string[];
  /** Serve Cloudflare's challenge to requests from these addresses, the page to the others. */
  challenge(addresses: string[]): void;
  /** Answer a bare 403 to requests from these addresses. */
  forbid(addresses: string[]): void;
  close(): Promise<void>;
}

/** A site on 127.0.0.1 that tells exits apart by their source address. */
export async function startExitTarget(): Promise<ExitTarget> {
  const seen: string[] = [];
  let challenged = new Set<string>();
  let forbidden = new Set<string>();
  const server = http.createServer((req, res) => {
    const from = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
    seen.push(from);
    if (challenged.has(from)) {
      const page = CHALLENGE_PAGES.cloudflare;
      res.writeHead(page.status, { 'content-type': 'text/html; charset=utf-8', ...page.headers }).end(page.body);
      return;
    }
    if (forbidden.has(from)) return void res.writeHead(403, { 'content-type': 'text/plain' }).end('forbidden');
    if ((req.url ?? '').startsWith('/geo')) {
      // What a page's own script sees of where the browser is.
      const script = `document.getElementById('geo').textContent = Intl.DateTimeFormat().resolvedOptions().timeZone + ' ' + navigator.language;`;
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!DOCTYPE html><html><body><p id="geo"></p><script>${script}</script></body></html>`);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!DOCTYPE html><html><body><p id="from">${from}</p></body></html>`);
  });
  const listening = await listenOnLoopback(server);
  const port = listening.port;
  return {
    url: `http://127.0.0.1:${port}/page`,
    geoUrl: `http://127.0.0.1:${port}/geo`,
    seen: () => [...seen],
    challenge: (addresses) => {
      challenged = new Set(addresses);
    },
    forbid: (addresses) => {
      forbidden = new Set(addresses);
    },
    close: listening.close,
  };
}
