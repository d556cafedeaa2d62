import http from 'node:http';
import net, { type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { EgressLease } from '../../egress/guard.js';
import { pipeBoth } from '../../egress/relay.js';

/**
 * A loopback forward proxy for one remote-browser connection, passing everything to the egress guard
 * under the connection's lease. CDP contexts take a proxy URL but no credentials (Playwright answers
 * the proxy's 407 itself; a raw CDP client would not), so this listener adds them. It lives as long
 * as the connection; the guard still checks every destination address.
 */
export class LeaseProxy {
  private readonly server = http.createServer();
  private readonly sockets = new Set<Socket>();
  private readonly authorization: string;
  private readonly guardPort: number;

  private constructor(lease: EgressLease) {
    this.authorization = `Basic ${Buffer.from(`${lease.username}:${lease.password}`).toString('base64')}`;
    this.guardPort = Number(new URL(lease.server).port);
    this.server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    this.server.on('request', (req, res) => this.forward(req, res));
    this.server.on('connect', (req, socket, head) => this.tunnel(req, socket, head));
  }

  static async start(lease: EgressLease): Promise<LeaseProxy> {
    const proxy = new LeaseProxy(lease);
    await new Promise<void>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  get url(): string {
    const address = this.server.address() as net.AddressInfo;
    return `http://127.0.0.1:${address.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private forward(req: http.IncomingMessage, res: http.ServerResponse): void {
    const upstream = http.request({
      host: '127.0.0.1',
      port: this.guardPort,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, 'proxy-authorization': this.authorization },
    });
    upstream.on('response', (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  }

  private tunnel(req: http.IncomingMessage, client: Duplex, head: Buffer): void {
    const upstream = net.connect(this.guardPort, '127.0.0.1', () => {
      upstream.write(`CONNECT ${req.url} HTTP/1.1\r\nHost: ${req.url}\r\nProxy-Authorization: ${this.authorization}\r\n\r\n`);
      if (head.length > 0) upstream.write(head);
    });
    pipeBoth(upstream, client);
  }
}
