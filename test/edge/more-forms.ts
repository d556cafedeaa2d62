/** Probes of the bad-input table that expect a particular catalogue code (dates, header values, SSRF, lengths). */
import type { Fixtures, Probe } from './forms.js';

/** Out-of-range and malformed dates in every date-bearing parameter. */
export function dateProbes(): Probe[] {
  const cursor = (json: unknown) => Buffer.from(JSON.stringify(json)).toString('base64url');
  const far = ['9999-12-31T23:59:59Z', '+275760-09-13T00:00:00Z', '275760-09-13T00:00:00Z', '0000-01-01T00:00:00Z'];
  const probes: Probe[] = [];
  for (const value of far) {
    const q = encodeURIComponent(value);
    probes.push({ label: `GET /v1/usage at=${value}`, method: 'GET', path: `/v1/usage?at=${q}`, field: 'at', logs: true });
    probes.push({ label: `GET /v1/usage/reconciliation at=${value}`, method: 'GET', path: `/v1/usage/reconciliation?at=${q}`, field: 'at', logs: true });
    probes.push({ label: `GET /v1/usage/summary from=${value}`, method: 'GET', path: `/v1/usage/summary?from=${q}`, field: 'from', logs: true });
    probes.push({ label: `GET /v1/usage/summary to=${value}`, method: 'GET', path: `/v1/usage/summary?to=${q}`, field: 'to', logs: true });
    probes.push({ label: `GET /v1/requests before=${value}`, method: 'GET', path: `/v1/requests?before=${q}`, field: 'before', logs: false });
  }
  probes.push({ label: 'GET /v1/batch cursor in year 275760', method: 'GET', path: `/v1/batch?cursor=${cursor({ t: '+275760-09-13T00:00:00.000Z', i: 'x' })}`, field: 'cursor', logs: true });
  probes.push({ label: 'GET /v1/batch cursor with NUL id', method: 'GET', path: `/v1/batch?cursor=${cursor({ t: '2026-01-01T00:00:00.000Z', i: 'a\u0000' })}`, field: 'cursor', logs: true });
  return probes;
}

/** Header values HTTP does not allow, port 0, IPv4-compatible IPv6 targets and over-long strings. */
export function edgeProbes(f: Fixtures, port: number): Probe[] {
  const scrape = (label: string, body: unknown, field: string, code: string): Probe => ({
    label: `POST /v1/scrape ${label}`, method: 'POST', path: '/v1/scrape', body: JSON.stringify(body), field, logs: true, code,
  });
  const probes: Probe[] = [];
  for (const [name, value] of [['\\x01', 'a\u0001b'], ['ESC', '\u001b[31m'], ['DEL', 'a\u007fb'], ['U+20AC', 'price \u20ac'], ['9,000 characters', 'v'.repeat(9000)]]) {
    probes.push(scrape(`custom_headers value with ${name}`, { url: f.targetUrl, cache: false, custom_headers: { 'X-Probe': value } }, 'custom_headers.X-Probe', 'ERR::REQUEST::INVALID_PARAMETER'));
  }
  probes.push(scrape('url with port 0', { url: 'http://127.0.0.1:0/', cache: false }, 'port 0', 'ERR::SECURITY::INVALID_URL'));
  probes.push(scrape('proxy with port 0', { url: f.targetUrl, cache: false, proxy: 'http://proxy.example.com:0' }, 'proxy port 0', 'ERR::REQUEST::INVALID_PARAMETER'));
  const compatible = [`http://[::127.0.0.1]:${port}/`, `http://[::7f00:1]:${port}/`, `http://[::10.0.0.1]:${port}/`, `http://[::8.8.8.8]:${port}/`];
  for (const url of compatible) {
    probes.push(scrape(`url ${url}`, { url, cache: false }, 'ipv4-compatible', 'ERR::SECURITY::SSRF_BLOCKED'));
    probes.push({ label: `GET /v1/scrape?url=${url}`, method: 'GET', path: `/v1/scrape?url=${encodeURIComponent(url)}`, field: 'ipv4-compatible', logs: true, code: 'ERR::SECURITY::SSRF_BLOCKED' });
    probes.push({ label: `POST /v1/batch urls[0] ${url}`, method: 'POST', path: '/v1/batch', body: JSON.stringify({ urls: [url] }), field: 'ipv4-compatible', logs: true, code: 'ERR::SECURITY::SSRF_BLOCKED' });
  }
  probes.push({ label: 'POST /v1/webhooks url [::127.0.0.1]', method: 'POST', path: '/v1/webhooks', body: JSON.stringify({ url: `http://[::127.0.0.1]:${port}/hook` }), field: 'ipv4-compatible', logs: true, code: 'ERR::SECURITY::SSRF_BLOCKED' });
  const long = 'x'.repeat(300);
  probes.push(scrape('extract_preset of 300 characters', { url: f.targetUrl, extract_preset: long }, 'extract_preset', 'ERR::REQUEST::INVALID_PARAMETER'));
  probes.push(scrape('url of 9,000 characters', { url: `${f.targetUrl}?${'q'.repeat(9000)}` }, 'url', 'ERR::REQUEST::INVALID_PARAMETER'));
  const batch = (label: string, body: unknown, field: string): Probe => ({ label: `POST /v1/batch ${label}`, method: 'POST', path: '/v1/batch', body: JSON.stringify(body), field, logs: true, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  probes.push(batch('webhook_endpoint_id of 300 characters', { urls: [f.targetUrl], webhook_endpoint_id: long }, 'webhook_endpoint_id'));
  probes.push(batch('name of 300 characters', { urls: [f.targetUrl], name: long }, 'name'));
  probes.push(batch('items[0].external_id of 2,000 characters', { items: [{ url: f.targetUrl, external_id: 'e'.repeat(2000) }] }, 'external_id'));
  probes.push({ label: 'POST /v1/sessions region_pool of 300 characters', method: 'POST', path: '/v1/sessions', body: JSON.stringify({ region_pool: long }), field: 'region_pool', logs: true, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  probes.push({ label: 'POST /v1/sessions sticky_key of 300 characters', method: 'POST', path: '/v1/sessions', body: JSON.stringify({ sticky_key: long }), field: 'sticky_key', logs: true, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  probes.push({ label: 'GET /v1/requests/{300 characters}', method: 'GET', path: `/v1/requests/${long}`, field: 'id', logs: false, code: 'ERR::REQUEST::INVALID_PARAMETER' });
  return probes;
}
