import http from 'node:http';

export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body: string | Buffer | Record<string, unknown>;
}

export interface FakeGateway {
  url: string;
  /** Requests received, in order. */
  requests: Array<{ method: string; path: string; authorization: string | undefined; body: string; at: number }>;
  close(): Promise<void>;
}

/**
 * A stand-in gateway answering from a script, one answer per request (the last one repeats), so the
 * client's retry rules can be driven exactly: what status, which headers, how many attempts.
 */
export async function startFakeGateway(script: ScriptedAnswer[]): Promise<FakeGateway> {
  const requests: FakeGateway['requests'] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ method: req.method ?? '', path: req.url ?? '', authorization: req.headers.authorization, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const answer = script[Math.min(requests.length - 1, script.length - 1)];
      const json = typeof answer.body === 'object' && !Buffer.isBuffer(answer.body);
      const type = json ? (answer.status >= 400 ? 'application/problem+json' : 'application/json') : 'text/html; charset=utf-8';
      res.writeHead(answer.status, { 'content-type': type, 'x-request-id': `01FAKE${String(requests.length).padStart(20, '0')}`, ...answer.headers });
      res.end(json ? JSON.stringify(answer.body) : answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A problem body as the catalogue would send it. */
export function problem(status: number, code: string, retryable: boolean, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: `https://docs.trawler.dev/errors#${code}`, title: `Title of ${code}`, status, code, retryable, doc_url: 'x', target_status: null, detail: `detail of ${code}`, request_id: '01REQUESTIDOFTHEPROBLEM000', ...extra };
}
