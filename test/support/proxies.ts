import http from 'node:http';
import net from 'node:net';
import { createProxy } from 'proxy';

export interface TestProxy {
  /** Proxy URL with the configured credentials in userinfo, e.g. `http://user:pass@127.0.0.1:4000`. */
  url: string;
  /** The same without credentials. */
  endpoint: string;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Destinations (`host:port`) the proxy was asked to reach, in order. */
  targets(): string[];
  close(): Promise<void>;
}

export interface ProxyAuth {
  user: string;
  pass: string;
}

function withAuth(scheme: string, port: number, auth?: ProxyAuth): { url: string; endpoint: string } {
  const endpoint = `${scheme}://127.0.0.1:${port}`;
  const url = auth ? `${scheme}://${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@127.0.0.1:${port}` : endpoint;
  return { url, endpoint };
}

function tracked(server: net.Server): { count: () => number; closeAll: () => void } {
  let count = 0;
  const open = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    count += 1;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  return { count: () => count, closeAll: () => open.forEach((socket) => socket.destroy()) };
}

async function listen(server: net.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no address');
  return address.port;
}

/** An HTTP forward proxy (the `proxy` package) on loopback, with optional Basic authentication. */
export async function startHttpProxy(options: { auth?: ProxyAuth } = {}): Promise<TestProxy> {
  const server = createProxy(http.createServer());
  const destinations: string[] = [];
  server.on('connect', (req: http.IncomingMessage) => destinations.push(req.url ?? ''));
  server.on('request', (req: http.IncomingMessage) => destinations.push(req.url ?? ''));
  const expected = options.auth ? `Basic ${Buffer.from(`${options.auth.user}:${options.auth.pass}`).toString('base64')}` : null;
  if (expected) server.authenticate = (req) => req.headers['proxy-authorization'] === expected;
  const sockets = tracked(server);
  const port = await listen(server);
  return {
    ...withAuth('http', port, options.auth),
    connections: sockets.count,
    targets: () => [...destinations],
    close: async () => {
      sockets.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Reads exactly `n` bytes from a socket in paused mode. */
function readBytes(socket: net.Socket, n: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const chunk = socket.read(n) as Buffer | null;
      if (chunk !== null) {
        socket.removeListener('readable', attempt);
        socket.removeListener('close', onClose);
        resolve(chunk);
      }
    };
    const onClose = (): void => reject(new Error('socket closed'));
    socket.on('readable', attempt);
    socket.once('close', onClose);
    attempt();
  });
}

async function readDestination(socket: net.Socket): Promise<{ host: string; port: number }> {
  const [, , , type] = await readBytes(socket, 4);
  let host: string;
  if (type === 1) host = [...(await readBytes(socket, 4))].join('.');
  else if (type === 4) host = (await readBytes(socket, 16)).toString('hex').match(/.{4}/g)?.join(':') ?? '';
  else host = (await readBytes(socket, (await readBytes(socket, 1))[0])).toString('latin1');
  return { host, port: (await readBytes(socket, 2)).readUInt16BE(0) };
}

/** Minimal SOCKS5 server (RFC 1928 CONNECT, RFC 1929 user/pass) for tests. */
async function socksSession(socket: net.Socket, auth: ProxyAuth | undefined, destinations: string[]): Promise<void> {
  const [, methodCount] = await readBytes(socket, 2);
  const methods = [...(await readBytes(socket, methodCount))];
  const wanted = auth ? 2 : 0;
  if (!methods.includes(wanted)) return void socket.end(Buffer.from([5, 0xff]));
  socket.write(Buffer.from([5, wanted]));
  if (auth) {
    const [, userLength] = await readBytes(socket, 2);
    const user = (await readBytes(socket, userLength)).toString('utf8');
    const pass = (await readBytes(socket, (await readBytes(socket, 1))[0])).toString('utf8');
    const ok = user === auth.user && pass === auth.pass;
    socket.write(Buffer.from([1, ok ? 0 : 1]));
    if (!ok) return void socket.end();
  }
  const { host, port } = await readDestination(socket);
  destinations.push(`${host}:${port}`);
  const upstream = net.connect({ host, port });
  upstream.once('error', () => socket.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
  upstream.once('connect', () => {
    upstream.removeAllListeners('error');
    socket.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
    socket.pipe(upstream).pipe(socket);
    upstream.on('error', () => socket.destroy());
    socket.on('error', () => upstream.destroy());
    socket.once('close', () => upstream.destroy());
  });
}

export async function startSocksProxy(options: { auth?: ProxyAuth } = {}): Promise<TestProxy> {
  const destinations: string[] = [];
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socksSession(socket, options.auth, destinations).catch(() => socket.destroy());
  });
  const sockets = tracked(server);
  const port = await listen(server);
  return {
    ...withAuth('socks5', port, options.auth),
    connections: sockets.count,
    targets: () => [...destinations],
    close: async () => {
      sockets.closeAll();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
