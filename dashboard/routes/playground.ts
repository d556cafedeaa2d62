import { Router } from 'express';
import { z } from 'zod';
import { ServiceError } from '../../lib/errors/index.js';
import { findKeyBySecret } from '../../lib/store/accounts.js';
import { defaultKeyBinding, defaultKeyOf } from '../../lib/store/dashboard/keys.js';
import { scrapeFieldTable } from '../../lib/scrape/field-table.js';
import { AI_EXTRACT_CREDITS, ENGINE_PRICE_CREDITS } from '../../lib/billing/prices.js';
import type { DashboardContext } from '../context.js';
import { membershipOf, parseInput } from '../org-access.js';
import { previewTicket } from './preview.js';

/** Bound on the answer the playground hands to the browser (a larger page is cut, and says so). */
export const PLAYGROUND_MAX_BODY_BYTES = 5 * 1024 * 1024;
const SCRAPE_TIMEOUT_MS = 180_000;
/** Answer headers the preview shows (the rest are transport). */
const SHOWN_HEADERS = /^(x-request-id|x-credits-charged|x-request-cost|x-target-status|x-engine|cache-state|x-warning|content-type|x-ratelimit-.*|concurrency-.*|retry-after)$/i;

const Run = z.strictObject({
  /** "default": the workspace's Default key, used here without being revealed; else a pasted secret. */
  key: z.union([z.literal('default'), z.strictObject({ secret: z.string().min(1).max(200) })]),
  params: z.record(z.string(), z.unknown()),
});

/**
 * The playground (docs/dashboard.md): the scrape parameters as the API defines them, the price list,
 * and a run that goes to the gateway's POST /v1/scrape like any client, with a key of this workspace,
 * so the request is validated, billed and logged exactly as it would be from curl.
 */
export function playgroundRoutes(context: DashboardContext, apiUrl: () => string): Router {
  const router = Router({ mergeParams: true });

  router.get('/playground', (_req, res) => {
    // The browser builds the gateway's address from its own host and this port (the snippets' URL).
    res.json({ fields: scrapeFieldTable(), prices: ENGINE_PRICE_CREDITS, ai_extract_credits: AI_EXTRACT_CREDITS, api_port: Number(new URL(apiUrl()).port) || null });
  });

  router.post('/playground/scrape', async (req, res) => {
    const { organization } = membershipOf(res);
    const body = parseInput(Run, req.body);
    const secret = body.key === 'default' ? await defaultSecret(context, organization.id) : body.key.secret;
    if (body.key !== 'default') {
      const found = await findKeyBySecret(context.db, secret);
      if (!found || found.organization.id !== organization.id) {
        throw new ServiceError('ERR::AUTH::INVALID_KEY', 'This is not a key of this workspace');
      }
    }
    const response = await fetch(`${apiUrl()}/v1/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(body.params),
      signal: AbortSignal.timeout(SCRAPE_TIMEOUT_MS),
    }).catch((cause: unknown) => {
      throw new ServiceError('ERR::INTERNAL::UNAVAILABLE', 'The gateway did not answer', { cause });
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    const contentType = response.headers.get('content-type') ?? '';
    const textual = !/^application\/pdf|^image\//.test(contentType);
    const kept = bytes.subarray(0, PLAYGROUND_MAX_BODY_BYTES);
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (SHOWN_HEADERS.test(name)) headers[name] = value;
    });
    const text = textual ? kept.toString('utf8') : undefined;
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      ...previewOf(context, text, contentType, String(body.params.url ?? '')),
      status: response.status,
      headers,
      content_type: contentType,
      bytes: bytes.length,
      truncated: bytes.length > kept.length,
      ...(text !== undefined ? { body: text } : { body_base64: kept.toString('base64') }),
    });
  });
  return router;
}

async function defaultSecret(context: DashboardContext, organizationId: string): Promise<string> {
  const current = await defaultKeyOf(context.db, organizationId);
  if (!current || current.key.revoked_at) throw new ServiceError('ERR::REQUEST::NOT_FOUND', 'This workspace has no live Default key: rotate it, or paste another key');
  const secret = context.box.open(current.sealed_secret, defaultKeyBinding(organizationId, current.key.id));
  if (secret === null) throw new ServiceError('ERR::REQUEST::CONFLICT', 'The Default key was sealed under another DASHBOARD_SECRET_KEY: rotate it, or paste another key');
  return secret;
}

/**
 * A ticket for the HTML the Rendered tab shows (the body, or an envelope's HTML content) at its
 * address (routes/preview.ts); the browser posts that HTML back with it. None for other answers.
 */
function previewOf(context: DashboardContext, text: string | undefined, contentType: string, requestedUrl: string): { preview_ticket?: string } {
  if (text === undefined) return {};
  let html: string | null = contentType.startsWith('text/html') ? text : null;
  let base = requestedUrl;
  if (contentType.includes('json')) {
    try {
      const envelope = JSON.parse(text) as { content?: unknown; final_url?: unknown };
      if (typeof envelope.content === 'string' && /^\s*</.test(envelope.content)) html = envelope.content;
      if (typeof envelope.final_url === 'string') base = envelope.final_url;
    } catch {
      // not an envelope
    }
  }
  const ticket = html === null ? undefined : previewTicket(context, html, base);
  return ticket === undefined ? {} : { preview_ticket: ticket };
}
