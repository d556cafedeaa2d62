import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import zlib from 'node:zlib';
import iconv from 'iconv-lite';
import { generate } from 'selfsigned';
import { CHALLENGE_PAGES, NOT_CHALLENGE_PAGES, type ChallengePage } from './challenge-pages.js';
import { zstdStoredFrame } from './zstd-frame.js';

export interface TargetSite {
  /** Base URL with a trailing slash, e.g. `http://127.0.0.1:40123/`. */
  url: string;
  /** `http://127.0.0.1:40123` */
  origin: string;
  /** How many requests reached `path` (pathname only, no query). */
  hits(path: string): number;
  close(): Promise<void>;
}

export const SIMPLE_HTML = '<!DOCTYPE html><html><head><title>Trawler target</title></head><body><h1>Hello from the target</h1><p>Plain page.</p></body></html>';
export const ARTICLE_HTML = `<!DOCTYPE html><html><head><title>An article</title><meta name="description" content="A test article"></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav><main><article><h1>The article title</h1>
<p>First paragraph of the article body, long enough to be the main content of the page.</p>
<p>Second paragraph with a <a href="/static/other.html">link</a>.</p></article></main>
<footer>Footer text &copy; Trawler</footer></body></html>`;
export const COMPRESSED_TEXT = '<!DOCTYPE html><html><body><p>Compressed body: caf\u00e9 \u2603 ok</p></body></html>';
export const CHARSET_TEXT = 'caf\u00e9 na\u00efve \u00fcber';
export const SHIFT_JIS_TEXT = '\u65e5\u672c\u8a9e\u306e\u30da\u30fc\u30b8';
/** A minimal valid one-page PDF. */
export const TINY_PDF = Buffer.from(
  '%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[3 0 R]/Count 1>>endobj\n' +
    '3 0 obj<</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n',
  'latin1',
);
export const BIG_BYTES = 11 * 1024 * 1024;

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, url: URL) => void;

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, extra: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...extra });
  res.end(body);
}

function sendPage(res: http.ServerResponse, page: ChallengePage): void {
  send(res, page.status, 'text/html; charset=utf-8', page.body, page.headers);
}

function compressed(encoding: string, data: Buffer): Handler {
  return (_req, res) => send(res, 200, 'text/html; charset=utf-8', data, { 'content-encoding': encoding });
}

const html = (body: string): string => `<!DOCTYPE html><html><head><title>t</title></head><body>${body}</body></html>`;

const ROUTES: Record<string, Handler> = {
  '/': (_req, res) => send(res, 200, 'text/html; charset=utf-8', SIMPLE_HTML),
  '/static/article.html': (_req, res) => send(res, 200, 'text/html; charset=utf-8', ARTICLE_HTML),
  '/redirect-to': (_req, res, url) => {
    const status = Number(url.searchParams.get('status') ?? '302');
    res.writeHead(status, { location: url.searchParams.get('url') ?? '/' }).end();
  },
  '/slow': (_req, res, url) => {
    const timer = setTimeout(() => send(res, 200, 'text/html', html('slow done')), Number(url.searchParams.get('ms') ?? '1000'));
    res.once('close', () => clearTimeout(timer));
  },
  '/hang': () => undefined,
  '/reset': (req) => req.socket.resetAndDestroy(),
  '/gzip': compressed('gzip', zlib.gzipSync(COMPRESSED_TEXT)),
  '/deflate': compressed('deflate', zlib.deflateSync(COMPRESSED_TEXT)),
  '/br': compressed('br', zlib.brotliCompressSync(COMPRESSED_TEXT)),
  '/zstd': compressed('zstd', zstdStoredFrame(Buffer.from(COMPRESSED_TEXT))),
  '/charset/latin1-header': (_req, res) => send(res, 200, 'text/html; charset=ISO-8859-1', iconv.encode(html(CHARSET_TEXT), 'latin1')),
  '/charset/latin1-meta': (_req, res) =>
    send(res, 200, 'text/html', iconv.encode(`<!DOCTYPE html><html><head><meta charset="iso-8859-1"><title>t</title></head><body>${CHARSET_TEXT}</body></html>`, 'latin1')),
  '/charset/shift-jis-http-equiv': (_req, res) =>
    send(res, 200, 'text/html', iconv.encode(`<html><head><meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS"></head><body>${SHIFT_JIS_TEXT}</body></html>`, 'shift_jis')),
  '/charset/shift-jis-header': (_req, res) => send(res, 200, 'text/html; charset=shift_jis', iconv.encode(html(SHIFT_JIS_TEXT), 'shift_jis')),
  '/charset/utf8-declared-latin1': (_req, res) => send(res, 200, 'text/html; charset=ISO-8859-1', Buffer.from(html(CHARSET_TEXT), 'utf8')),
  '/charset/utf8-meta-windows-1252': (_req, res) =>
    send(res, 200, 'text/html', Buffer.from(`<!DOCTYPE html><html><head><meta charset="windows-1252"><title>t</title></head><body>${CHARSET_TEXT}</body></html>`, 'utf8')),
  '/charset/utf16-bom': (_req, res) => send(res, 200, 'text/html', iconv.encode(html(CHARSET_TEXT), 'utf-16le', { addBOM: true })),
  '/cookies/set': (_req, res, url) => {
    const cookies = [...url.searchParams].map(([name, value]) => `${name}=${value}; Path=/`);
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': cookies });
    res.end(JSON.stringify({ set: Object.fromEntries(url.searchParams) }));
  },
  '/echo': (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () =>
      send(res, 200, 'application/json', JSON.stringify({ method: req.method, url: req.url, headers: req.headers, rawHeaders: req.rawHeaders, body: Buffer.concat(chunks).toString('utf8') })),
    );
  },
  '/json': (_req, res) => send(res, 200, 'application/json; charset=utf-8', JSON.stringify({ name: 'trawler', items: [1, 2, 3], note: 'caf\u00e9' })),
  '/pdf': (_req, res) => send(res, 200, 'application/pdf', TINY_PDF),
  '/big': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let sent = 0;
    const pump = (): void => {
      while (sent < BIG_BYTES) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      res.end();
    };
    res.once('close', () => (sent = BIG_BYTES));
    pump();
  },
  '/big-gzip': compressed('gzip', zlib.gzipSync(Buffer.alloc(BIG_BYTES, 0x61))),
  /** Bodies of a declared length (the other routes are chunked). */
  '/sized': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(SIMPLE_HTML)) });
    res.end(SIMPLE_HTML);
  },
  '/big-sized': (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(BIG_BYTES) });
    res.end(Buffer.alloc(BIG_BYTES, 0x61));
  },
  '/bare-403': (_req, res) => sendPage(res, NOT_CHALLENGE_PAGES['bare-403']),
};

function route(req: http.IncomingMessage, res: http.ServerResponse, url: URL): void {
  const exact = ROUTES[url.pathname];
  if (exact) return exact(req, res, url);
  const [, first, second] = url.pathname.split('/');
  if (first === 'redirect' && /^\d+$/.test(second ?? '')) {
    const n = Number(second);
    if (n === 0) return send(res, 200, 'text/html', html('redirects done'));
    res.writeHead(302, { location: `/redirect/${n - 1}` }).end();
    return;
  }
  if (first === 'status' && /^\d{3}$/.test(second ?? '')) return send(res, Number(second), 'text/html', html(`status ${second}`));
  if (first === 'challenge' && second && CHALLENGE_PAGES[second]) return sendPage(res, CHALLENGE_PAGES[second]);
  if (first === 'not-challenge' && second && NOT_CHALLENGE_PAGES[second]) return sendPage(res, NOT_CHALLENGE_PAGES[second]);
  send(res, 404, 'text/html', html('not found'));
}

async function serve(server: http.Server, scheme: 'http' | 'https'): Promise<TargetSite> {
  const counts = new Map<string, number>();
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  server.on('request', (req: http.IncomingMessage, res: http.ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://target.invalid');
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    route(req, res, url);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('target site has no address');
  const origin = `${scheme}://127.0.0.1:${address.port}`;
  return {
    url: `${origin}/`,
    origin,
    hits: (path) => counts.get(path) ?? 0,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The local target site every suite uses, on 127.0.0.1 and a random port. */
export function startTargetSite(): Promise<TargetSite> {
  return serve(http.createServer(), 'http');
}

/** The same routes over HTTPS with a freshly generated self-signed certificate (untrusted on purpose). */
export async function startTlsTargetSite(): Promise<TargetSite> {
  const pems = await generate([{ name: 'commonName', value: '127.0.0.1' }], { keySize: 2048 });
  return serve(https.createServer({ key: pems.private, cert: pems.cert }), 'https');
}
