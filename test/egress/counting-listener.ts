import net from 'node:net';

export interface CountingListener {
  host: string;
  port: number;
  connections(): number;
  close(): Promise<void>;
}

/** A TCP server that only counts connections (answers a minimal HTTP 200 so a leak is visible). */
export async function startCountingListener(host = '127.0.0.2'): Promise<CountingListener> {
  let count = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    count += 1;
    sockets.add(socket);
    socket.on('error', () => socket.destroy());
    socket.once('close', () => sockets.delete(socket));
    socket.end('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 6\r\n\r\nLEAKED');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  return {
    host,
    port: address.port,
    connections: () => count,
    close: async () => {
      sockets.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
