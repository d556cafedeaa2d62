import type { Screenshot, WorkerEnvelope } from '../../lib/protocol/index.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';

/** What the content pipeline takes and gives (its own file so build-envelope.ts and pipeline.ts need not import each other). */
export interface ContentInput {
  page: { finalUrl: string; status: number; mediaType: string; text: string | null; bodyBase64?: string };
  /** Uses response_format, main_content_only, include_tags, exclude_tags, links, autoparse, extract, screenshot. */
  params: ScrapeParams;
  extras: {
    screenshots?: Screenshot[];
    network?: unknown[];
    actionResults?: unknown[];
    pdfBase64?: string;
  };
  engine: string;
}

export interface ContentOutput {
  /** text/html | text/markdown | text/plain (each `; charset=utf-8`) | application/pdf | application/json */
  contentType: string;
  body: string;
  bodyEncoding: 'utf8' | 'base64';
  /** Non-null iff the JSON envelope is answered; `body` is then empty (the gateway serialises the envelope). */
  envelope: WorkerEnvelope | null;
  extractMs: number;
  /** Content warnings (CONTENT_TRUNCATED, CONTENT_FLATTENED); also inside the envelope. */
  warnings: string[];
  /**
   * With ai_extract: the page as markdown for the model (main content unless main_content_only=false),
   * or undefined when it is the envelope's `content` already (docs/ai-extract.md "What the model reads").
   */
  modelInput?: string;
  /** A page of the fetch engine that needs JavaScript to show its content (worker/needs-javascript.ts). */
  needsJavaScript: boolean;
}
