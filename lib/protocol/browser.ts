import { z } from 'zod';
import { WireErrorSchema } from '../errors/index.js';
import { SessionStateSchema, WireCookieSchema } from './scrape.js';
import { SUBJECT_PREFIX } from './subjects.js';

/**
 * Gateway <-> worker protocol of the remote browser (docs/remote-browser.md "Transport"). The bus
 * carries only the lease of a connection (open request, ticket URL); CDP frames go over a direct
 * WebSocket from the gateway to the worker's relay port.
 */
export type BrowserEngineName = 'chromium' | 'obscura';

export function browserSubject(engine: BrowserEngineName): string {
  return `${SUBJECT_PREFIX}.browser.${engine}`;
}

/**
 * One worker's own lease subject: the gateway asks it directly when the queue group's member was full
 * (docs/remote-browser.md "Transport", "A full worker").
 */
export function browserWorkerSubject(engine: BrowserEngineName, workerId: string): string {
  return `${browserSubject(engine)}.${workerId}`;
}

/** The default relay port of a worker pod (the operator's ScrapeEngine `remoteBrowser.port`); the embedded default takes any free port. */
export const DEFAULT_RELAY_PORT = 9300;

/** The port an engine's relay listens on for BROWSER_RELAY_PORT=`base`: a fixed port is chromium's; obscura's relay takes the next one. */
export function relayPortOf(engine: BrowserEngineName, base: number): number {
  return base === 0 ? 0 : base + (engine === 'obscura' ? 1 : 0);
}

/** Every worker serving remote browsers of an engine joins this queue group: one of them takes each lease. */
export function browserQueueGroup(engine: BrowserEngineName): string {
  return `trawler-browser-${engine}`;
}

export const BROWSER_OPEN_TYPE = 'trawler.browser.open.v1';

export const BrowserOpenSchema = z.object({
  type: z.literal(BROWSER_OPEN_TYPE),
  request_id: z.string(),
  engine: z.enum(['chromium', 'obscura']),
  ttl_ms: z.number().int().positive(),
  idle_ms: z.number().int().positive(),
  headless: z.boolean(),
  /** The upstream proxy of the connection's egress lease (credentials included; never logged). */
  upstream_proxy: z.string().nullable(),
  /** The upstream is a managed pool exit: the deployment's own, not checked as a caller's proxy is. */
  upstream_trusted: z.boolean(),
  /** Cookies and localStorage loaded into the connection's context before the client sees it. */
  session: SessionStateSchema.nullable(),
});
export type BrowserOpen = z.infer<typeof BrowserOpenSchema>;

export const BrowserLeaseSchema = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), worker_id: z.string(), relay_url: z.string() }),
  z.object({
    ok: z.literal(false),
    error: WireErrorSchema,
    /** The refusing worker and whether it refused because every relay slot was taken: the gateway then asks another. */
    worker_id: z.string().optional(),
    busy: z.boolean().optional(),
  }),
]);
export type BrowserLease = z.infer<typeof BrowserLeaseSchema>;

/**
 * Control frames between the worker and the gateway on the relay socket, never sent to the client.
 * They start with this prefix so the gateway recognises them without parsing every CDP frame.
 */
export const CONTROL_PREFIX = '{"trawler":';

export const ControlSchema = z.object({
  trawler: z.union([
    /** Gateway -> worker: the client went; save what is to be saved and close. */
    z.object({ end: z.literal('client') }),
    /**
     * Worker -> gateway, just before its close: the context's cookies at the end, and the localStorage of
     * the origins its pages went to (absent when it could not be read: the session keeps its own).
     */
    z.object({ cookies: z.array(WireCookieSchema), local_storage: SessionStateSchema.shape.local_storage.optional() }),
  ]),
});
export type Control = z.infer<typeof ControlSchema>;

export function controlFrame(control: Control['trawler']): string {
  return JSON.stringify({ trawler: control });
}

/** What a worker's relay port shows in its heartbeat: remote-browser connections in use of its capacity. */
export const BrowserSessionsSchema = z.object({ capacity: z.number().int(), in_use: z.number().int() });

/** A WebSocket message as `ws` hands it over. */
type Frame = Buffer | ArrayBuffer | Buffer[];

/** Whether a frame is a control frame, read from its first bytes only (CDP frames can be megabytes). */
export function isControlFrame(data: Frame): boolean {
  const head = Array.isArray(data) ? data[0] : Buffer.isBuffer(data) ? data : Buffer.from(data);
  return head !== undefined && head.subarray(0, CONTROL_PREFIX.length).toString('latin1') === CONTROL_PREFIX;
}

/** A control frame's content, or null when it is not one this version knows. */
export function readControl(data: Frame): Control['trawler'] | null {
  try {
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const parsed = ControlSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.trawler : null;
  } catch {
    return null;
  }
}
