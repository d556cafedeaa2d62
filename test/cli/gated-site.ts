import http from 'node:http';

export interface GatedSite {
  url: string;
  /** Lets every held request (and every later one) answer. */
  open(): void;
  close(): Promise<void>;
}

/**
 * A target whose pages answer only once the test opens the gate, so a batch job is certainly still
 * running when the test interrupts the CLI, however slow the machine is.
 */
export async function startGatedSite(): Promise<GatedSite> {
  let opened = false;
  const held: http.ServerResponse[] = [];
  const answer = (res: http.ServerResponse) => res.writeHead(200, { 'content-type': 'text/html' }).end('<p>gated page</p>');
  const server = http.createServer((_req, res) => {
    if (opened) answer(res);
    else held.push(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/`,
    open() {
      opened = true;
      for (const res of held.splice(0)) answer(res);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
