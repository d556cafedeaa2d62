import net from 'node:net';

/**
 * The parts every loopback proxy of the tests is made of (test/support/proxies.ts: the caller's own
 * proxies; test/support/pool-exits.ts: a pool's exits): listening on 127.0.0.1, closing with every
 * connection cut, the proxy URL, a SOCKS5 server and a CONNECT tunnel, each leaving from a chosen
 * 127.0.0.x source address when asked.
 */
export interface ProxyAuth {
  user: string;
  pass: string;
}

export interface LoopbackServer {
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  /** Cuts every open connection and closes the server. */
  close(): Promise<void>;
}

/** Listens on a free 127.0.0.1 port, counting connections so that `close` can cut them. */
export async function listenOnLoopback(server: net.Server): Promise<LoopbackServer> {
  let count = 0;
  const open = new Set<net.Socket>();
  server.on('connection', (socket: net.Socket) => {
    count += 1;
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('loopback server has no address');
  return {
    port: address.port,
    connections: () => count,
    close: async () => {
      open.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `scheme://user:pass@127.0.0.1:port` (credentials encoded), or without userinfo. */
export function proxyUrl(scheme: string, port: number, auth?: ProxyAuth): string {
  const userinfo = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.pass)}@` : '';
  return `${scheme}://${userinfo}127.0.0.1:${port}`;
}

/** Joins a client to `upstream` once it connects; `ready` is written to the client first. */
function pipeOnConnect(client: net.Socket, upstream: net.Socket, ready: string | Buffer, head?: Buffer): void {
  upstream.once('connect', () => {
    upstream.removeAllListeners('error');
    client.write(ready);
    if (head && head.length > 0) upstream.write(head);
    client.pipe(upstream).pipe(client);
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
  });
}

/** An accepted CONNECT: the tunnel to `authority` (`host:port`, `[v6]:port`), from `localAddress` when given. */
export function tunnel(client: net.Socket, head: Buffer, authority: string, localAddress?: string): void {
  const [host, port] = authority.startsWith('[') ? [authority.slice(1, authority.indexOf(']')), authority.split(']:')[1]] : authority.split(':');
  const upstream = net.connect({ host, port: Number(port), localAddress });
  upstream.once('error', () => client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n'));
  pipeOnConnect(client, upstream, 'HTTP/1.1 200 Connection Established\r\n\r\n', head);
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

export interface SocksOptions {
  /** RFC 1929 user/pass; without it, no authentication. */
  auth?: ProxyAuth;
  /** 127.0.0.x source address of its outgoing connections. */
  localAddress?: string;
  /** Told each CONNECT's destination (`host:port`) as it is asked for. */
  onConnect?(destination: string): void;
}

/** One SOCKS5 session (RFC 1928 CONNECT, RFC 1929 user/pass). */
async function socksSession(socket: net.Socket, options: SocksOptions): Promise<void> {
  const { auth } = options;
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
  options.onConnect?.(`${host}:${port}`);
  const upstream = net.connect({ host, port, localAddress: options.localAddress });
  upstream.once('error', () => socket.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])));
  pipeOnConnect(socket, upstream, Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]));
}

/** A SOCKS5 server on loopback. */
export async function startSocksServer(options: SocksOptions = {}): Promise<LoopbackServer> {
  const server = net.createServer((socket) => {
    socket.on('error', () => socket.destroy());
    socksSession(socket, options).catch(() => socket.destroy());
  });
  return listenOnLoopback(server);
}
