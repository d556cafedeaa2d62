import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { brotliCompressSync, gzipSync } from 'node:zlib';

/** A loopback site of JavaScript pages for the browser engine tests and the benchmark. */
export interface JsSite {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** `http://127.0.0.2:<port>`: a listener the pages try to reach; it must never see a connection. */
  privateOrigin: string;
  /** Connections the 127.0.0.2 listener accepted. */
  privateConnections(): number;
  /** Requests the site served for a path (no query). */
  hits(path: string): number;
  /** Resolves when the site next receives a request for `path`. */
  nextHit(path: string): Promise<void>;
  close(): Promise<void>;
}

const html = (body: string, head = ''): string =>
  `<!doctype html><html><head><meta charset="utf-8"><title>Test page</title>${head}</head><body>${body}</body></html>`;

/** Challenge pages: a marker each vendor's rule recognises, no external URLs (the machine is offline). */
export const CHALLENGE_PAGES: Record<string, { status: number; headers?: Record<string, string>; body: string }> = {
  cloudflare: { status: 403, body: '<title>Just a moment...</title><script>window._cf_chl_opt={cType:"managed"};</script>' },
  akamai: { status: 200, body: '<div id="sec-if-cpt-container">Checking your browser</div>' },
  datadome: { status: 403, headers: { 'x-datadome': 'protected' }, body: '<p>Blocked</p>' },
  perimeterx: { status: 403, body: '<div id="px-captcha">Press and hold</div>' },
  imperva: { status: 200, body: '<p>Request unsuccessful. Incapsula incident ID: 0-123</p>' },
  kasada: { status: 429, headers: { 'x-kpsdk-ct': 'token' }, body: '<p>Too many</p>' },
  'aws-waf': { status: 202, headers: { 'x-amzn-waf-action': 'challenge' }, body: '<p>Verifying</p>' },
  vercel: { status: 429, headers: { 'x-vercel-mitigated': 'challenge' }, body: '<p>Vercel Security Checkpoint</p>' },
  sucuri: { status: 403, body: '<h1>Sucuri WebSite Firewall - Access Denied</h1>' },
  'ddos-guard': { status: 403, body: '<p>Checking your browser - DDoS-Guard</p>' },
  hcaptcha: { status: 403, body: '<div class="h-captcha" data-sitekey="x"></div>' },
  recaptcha: { status: 403, body: '<div class="g-recaptcha" data-sitekey="x"></div>' },
};

function pages(privateOrigin: string): Record<string, () => { status?: number; type?: string; headers?: Record<string, string>; body: string | Buffer }> {
  const privateWs = privateOrigin.replace('http:', 'ws:');
  return {
    '/client-rendered': () => ({
      body: html('<div id="app">loading</div><script>document.getElementById("app").innerHTML = "<h1 id=\\"title\\">Rendered by JS</h1>";</script>'),
    }),
    '/delayed': () => ({
      body: html('<p>first</p><script>setTimeout(() => { const p = document.createElement("p"); p.id = "late"; p.textContent = "Late content"; document.body.append(p); }, 600);</script>'),
    }),
    '/static': () => ({ body: html('<h1>Static page</h1><p>No script here.</p>') }),
    // A page far taller than a screenshot may be (40,000 px), with a tall element in it.
    '/tall': () => ({ body: html('<div id="tower" style="height:40000px;width:300px;background:linear-gradient(#fff,#000)">tall</div>') }),
    // Twelve 1 MiB bodies, then one of 9 MiB; #out fills once all have arrived.
    '/many-bodies': () => ({
      body: html(
        '<p id="out"></p><script>const sizes = [...Array(12).fill(1048576), 9437184];' +
          'Promise.all(sizes.map((n, i) => fetch(`/bytes?n=${n}&i=${i}`).then((r) => r.text())))' +
          '.then((all) => { document.getElementById("out").textContent = String(all.length); });</script>',
      ),
    }),
    // One 9 MiB and one 1,000-byte body, neither with a Content-Length.
    '/chunked-bodies': () => ({
      body: html(
        '<p id="out"></p><script>Promise.all([9437184, 1000].map((n) => fetch(`/bytes?chunked=1&n=${n}`).then((r) => r.text())))' +
          '.then((all) => { document.getElementById("out").textContent = String(all.length); });</script>',
      ),
    }),
    // Two compression bombs (16 MiB of text in a few KiB on the wire) and a small compressed body.
    '/compressed-bodies': () => ({
      body: html(
        '<p id="out"></p><script>Promise.all(["gzip", "br"].map((c) => fetch(`/compressed?coding=${c}&n=16777216`)).concat(fetch("/compressed?coding=gzip&n=1000"))' +
          '.map((p) => p.then((r) => r.text())))' +
          '.then((all) => { document.getElementById("out").textContent = String(all.length); });</script>',
      ),
    }),
    /** UTF-8 bytes, no charset in the header, no meta: the fetch engine reads UTF-8, a browser windows-1252. */
    '/undeclared-charset': () => ({
      type: 'text/html',
      body: Buffer.from('<!doctype html><html><head><title>Undeclared</title></head><body><p id="t">café naïve über — ✓</p><p id="js"></p><script>document.getElementById("js").textContent = "script wrote é";</script></body></html>', 'utf8'),
    }),
    /** As /undeclared-charset, with what the browser itself read: its characterSet, and the text's length as a script measures it. */
    '/undeclared-charset-seen': () => ({
      type: 'text/html',
      body: Buffer.from('<!doctype html><html><head><title>Undeclared</title></head><body><p id="t">café</p><p id="seen"></p><script>document.getElementById("seen").textContent = document.characterSet + " " + document.getElementById("t").textContent.length;</script></body></html>', 'utf8'),
    }),
    /** Content from a request the page makes at load, answered 300 ms later (the settle wait). */
    '/fetch-at-load': () => ({
      body: html('<div id="app">Loading…</div><script>fetch("/api/late").then((r) => r.json()).then((d) => { document.getElementById("app").textContent = d.text; });</script>'),
    }),
    '/infinite': () => ({
      body: html(
        '<ul id="list"></ul><script>let page = 0; const list = document.getElementById("list");' +
          'async function more() { const r = await fetch("/api/items?page=" + page); const items = await r.json(); page += 1;' +
          'for (const i of items) { const li = document.createElement("li"); li.className = "item"; li.style.height = "300px"; li.textContent = i; list.append(li); }' +
          'if (page >= 4) { const end = document.createElement("p"); end.id = "end"; end.textContent = "The end"; document.body.append(end); window.removeEventListener("scroll", onScroll); } }' +
          'function onScroll() { if (window.innerHeight + window.scrollY >= document.body.scrollHeight - 50) more(); }' +
          'window.addEventListener("scroll", onScroll); more();</script>',
      ),
    }),
    '/form': () => ({
      body: html(
        '<form id="f"><input id="name" name="name"><input id="typed" name="typed"><select id="color"><option value="red">Red</option><option value="blue">Blue</option></select>' +
          '<input type="checkbox" id="agree"><button id="go" type="submit">Go</button></form><div id="hover-target">not hovered</div><div id="result"></div>' +
          '<script>document.getElementById("hover-target").addEventListener("mouseenter", e => e.target.textContent = "hovered");' +
          'document.getElementById("f").addEventListener("submit", e => { e.preventDefault(); document.getElementById("result").textContent = ' +
          '["name", "typed", "color"].map(id => document.getElementById(id).value).concat(document.getElementById("agree").checked).join("|"); });</script>',
      ),
    }),
    '/xhr': () => ({
      body: html(
        '<div id="out"></div><script>fetch("/api/data").then(r => r.json()).then(d => { out.textContent += d.message; });' +
          'const x = new XMLHttpRequest(); x.open("POST", "/api/xhr"); x.onload = () => { out.textContent += " " + x.responseText; }; x.send("ping");</script>',
      ),
    }),
    '/ssrf': () => ({
      body: html(
        `<p id="ok">still here</p><img src="${privateOrigin}/img.png"><iframe src="file:///etc/passwd"></iframe><iframe src="${privateOrigin}/frame"></iframe>` +
          `<script>fetch("${privateOrigin}/fetch").catch(() => {}); try { new WebSocket("${privateWs}/ws"); } catch (e) {}` +
          `window.open("${privateOrigin}/popup"); const a = document.createElement("a"); a.href = "/download.bin"; a.download = "x.bin"; document.body.append(a); a.click();</script>`,
      ),
    }),
    '/redirect-private': () => ({ status: 302, headers: { location: `${privateOrigin}/secret` }, body: '' }),
    // Navigates while it is parsed, before any capture could happen.
    '/script-navigates-private': () => ({ body: html(`<p>first page</p><script>location.replace("${privateOrigin}/nav");</script>`) }),
    '/script-navigates': () => ({ body: html('<p>first page</p><script>location.replace("/gone");</script>') }),
    '/gone': () => ({ status: 410, body: html('<h1>Second page</h1>') }),
    '/empty-403': () => ({ status: 403, body: '' }),
    '/download.bin': () => ({ type: 'application/octet-stream', headers: { 'content-disposition': 'attachment; filename=x.bin' }, body: Buffer.alloc(64, 1) }),
    '/images': () => ({ body: html('<img id="pic" src="/img.png" width="10" height="10"><p>pictures</p>') }),
    '/img.png': () => ({ type: 'image/png', body: Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6300010000050001' + '0d0a2db40000000049454e44ae426082', 'hex') }),
    '/headers': () => ({ body: html('<pre id="headers"></pre>') }),
    '/api/data': () => ({ type: 'application/json', body: JSON.stringify({ message: 'hello from fetch' }) }),
    '/api/xhr': () => ({ type: 'text/plain', body: 'pong' }),
    '/json': () => ({ type: 'application/json', body: JSON.stringify({ plain: true }) }),
  };
}

export async function startJsSite(): Promise<JsSite> {
  const counts = new Map<string, number>();
  const hitWaiters = new Map<string, Array<() => void>>();
  const sockets = new Set<Socket>();
  let privateConnections = 0;

  const privateServer = http.createServer((_req, res) => res.end('private'));
  privateServer.on('connection', (socket: Socket) => {
    privateConnections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => privateServer.listen(0, '127.0.0.2', () => resolve()));
  const privateOrigin = `http://127.0.0.2:${(privateServer.address() as AddressInfo).port}`;
  const routes = pages(privateOrigin);

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    counts.set(url.pathname, (counts.get(url.pathname) ?? 0) + 1);
    for (const wake of hitWaiters.get(url.pathname) ?? []) wake();
    hitWaiters.delete(url.pathname);
    if (url.pathname === '/slow') return; // Never answers; the socket closes with the site.
    if (url.pathname === '/api/late') {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text: 'Arrived after load' })), 300);
      return;
    }
    if (url.pathname === '/api/items') {
      const page = Number(url.searchParams.get('page') ?? 0);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(Array.from({ length: 5 }, (_, i) => `item ${page * 5 + i + 1}`)));
      return;
    }
    if (url.pathname === '/bytes') {
      // `n` bytes of text, its length declared, or with `chunked`, not: sent in 64 KiB chunks.
      const size = Number(url.searchParams.get('n') ?? 0);
      if (url.searchParams.has('chunked')) {
        res.writeHead(200, { 'content-type': 'text/plain' });
        for (let sent = 0; sent < size; sent += 65_536) res.write(Buffer.alloc(Math.min(65_536, size - sent), 97));
        res.end();
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(size) });
      res.end(Buffer.alloc(size, 97));
      return;
    }
    if (url.pathname === '/compressed') {
      // `n` bytes of text, compressed with `coding` (gzip or br); Content-Length is the compressed size.
      const size = Number(url.searchParams.get('n') ?? 0);
      const text = Buffer.alloc(size, 120);
      const coding = url.searchParams.get('coding') === 'br' ? 'br' : 'gzip';
      const body = coding === 'br' ? brotliCompressSync(text) : gzipSync(text);
      res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': coding, 'content-length': String(body.length) });
      res.end(body);
      return;
    }
    if (url.pathname === '/echo-headers') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ method: req.method, headers: req.headers }));
      return;
    }
    const challenge = url.pathname.startsWith('/challenge/') ? CHALLENGE_PAGES[url.pathname.slice('/challenge/'.length)] : undefined;
    if (challenge) {
      res.writeHead(challenge.status, { 'content-type': 'text/html; charset=utf-8', ...challenge.headers });
      res.end(html(challenge.body));
      return;
    }
    const route = routes[url.pathname];
    if (!route) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end(html('<h1>Not found</h1>'));
      return;
    }
    const page = route();
    res.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8', ...page.headers });
    res.end(page.body);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    privateOrigin,
    privateConnections: () => privateConnections,
    hits: (path) => counts.get(path) ?? 0,
    nextHit: (path) =>
      new Promise<void>((resolve) => {
        hitWaiters.set(path, [...(hitWaiters.get(path) ?? []), resolve]);
      }),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await Promise.all([
        new Promise<void>((resolve) => server.close(() => resolve())),
        new Promise<void>((resolve) => privateServer.close(() => resolve())),
      ]);
    },
  };
}
