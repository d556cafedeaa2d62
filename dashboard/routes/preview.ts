import { createHash, timingSafeEqual } from 'node:crypto';
import * as cheerio from 'cheerio';
import express, { Router } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import type { DashboardContext } from '../context.js';
import { parseInput } from '../org-access.js';

export const PREVIEW_PATH = '/preview';
/**
 * Bound on the HTML posted back: the playground hands at most 5 MiB of body to the browser (a constant
 * here, not imported from playground.ts, which imports this module: the cycle left it undefined).
 */
const PREVIEW_MAX_HTML_CHARS = 10 * 1024 * 1024;

/**
 * The rendered preview's own policy (docs/dashboard.md "Preview"): `sandbox` without tokens gives the
 * document an opaque origin and no scripts even when it is opened as a page of its own; images,
 * styles, fonts and media of the scraped site load from anywhere (http, https, data); nothing else
 * does: no script, no frame, no object, no fetch/XHR, no form submission.
 */
export const PREVIEW_CSP = [
  'sandbox',
  "default-src 'none'",
  "script-src 'none'",
  'img-src http: https: data:',
  "style-src http: https: 'unsafe-inline'",
  'font-src http: https: data:',
  'media-src http: https: data:',
  "frame-src 'none'",
  "object-src 'none'",
  "connect-src 'none'",
  "form-action 'none'",
  'base-uri http: https:',
  "frame-ancestors 'self'",
].join('; ');

const Preview = z.strictObject({
  /** Minted by the playground run that produced the page (previewTicket). */
  ticket: z.string().max(1000),
  html: z.string().max(PREVIEW_MAX_HTML_CHARS),
});
/** A ticket outlives the run by this much: a preview left open can still be re-rendered (tabs). */
const TICKET_TTL_MS = 60 * 60_000;
const TICKET_BINDING = 'dashboard-preview';

interface Ticket {
  /** SHA-256 of the page's HTML, hex. */
  sha256: string;
  /** The page's address: its relative images and styles resolve against it. */
  base: string;
  expires: number;
}

/**
 * A ticket for one page: sealed with the store's sealing key (the same in every replica), so only a
 * playground run of a signed-in member mints one, and it opens the preview of that page only.
 */
export function previewTicket(context: DashboardContext, html: string, base: string): string | undefined {
  if (!/^https?:$/.test(safeProtocol(base))) return undefined;
  const ticket: Ticket = { sha256: sha256(html), base, expires: Date.now() + TICKET_TTL_MS };
  return context.box.seal(JSON.stringify(ticket), TICKET_BINDING);
}

/**
 * `POST /preview`: the playground's "Rendered" tab posts the answer's HTML here as a form targeting its
 * sandboxed iframe, and gets it back under PREVIEW_CSP. The form carries the ticket the run minted
 * (no cookie: the navigation of a sandboxed frame is a cross-site request for SameSite cookies), so
 * it is stateless (any replica answers) and shows only a page a member just scraped.
 */
export function previewRoutes(context: DashboardContext): Router {
  const router = Router();
  router.post(PREVIEW_PATH, express.urlencoded({ extended: false, limit: '12mb' }), (req, res) => {
    const body = parseInput(Preview, req.body);
    const opened = context.box.open(body.ticket, TICKET_BINDING);
    const ticket = opened === null ? null : (JSON.parse(opened) as Ticket);
    if (!ticket || ticket.expires < Date.now() || !sameDigest(ticket.sha256, sha256(body.html))) {
      throw new ServiceError('ERR::AUTH::INVALID_TOKEN', 'This preview ticket is unknown, expired or for another page: run the scrape again');
    }
    res.setHeader('Content-Security-Policy', PREVIEW_CSP);
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-store');
    res.type('text/html; charset=utf-8').send(previewDocument(body.html, ticket.base));
  });
  return router;
}

// A form sends line breaks as CRLF (HTML's form encoding): the digest is of the text with them as LF.
const sha256 = (text: string) => createHash('sha256').update(text.replace(/\r\n?/g, '\n'), 'utf8').digest('hex');
const sameDigest = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

function safeProtocol(url: string): string {
  try {
    return new URL(url).protocol;
  } catch {
    return '';
  }
}

/**
 * The page with its own address as `<base>` (first, so it wins), and without what the policy would
 * refuse anyway (scripts) or what would leave the preview (a meta refresh): belt and braces under the
 * sandbox.
 */
export function previewDocument(html: string, base: string): string {
  const $ = cheerio.load(html);
  $('script, base, meta[http-equiv="refresh" i]').remove();
  $('head').prepend($('<base>').attr('href', base));
  return $.html();
}
