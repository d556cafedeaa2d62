import { BROWSER_ROUTE_UNAVAILABLE, ERROR_CATALOGUE, codeAnchor, type CatalogueEntry } from './catalogue.js';
import type { Diagnostics } from './service-error.js';
import { ServiceError } from './service-error.js';

/** The problem+json body of every error (`Problem` in the API reference). */
export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  code: string;
  detail?: string;
  retryable: boolean;
  doc_url: string;
  request_id?: string;
  instance?: string;
  target_status: number | null;
  retry_after_seconds?: number;
  warnings?: string[];
  diagnostics?: Diagnostics;
}

export interface ProblemContext {
  docsUrl: string;
  requestId?: string;
  instance?: string;
  /** Use the catalogue's 501 variant of ENGINE::UNAVAILABLE (`/v1/browser` only). */
  browserRoute?: boolean;
}

export function entryFor(error: ServiceError, browserRoute = false): CatalogueEntry {
  if (browserRoute && error.code === 'ERR::ENGINE::UNAVAILABLE') return BROWSER_ROUTE_UNAVAILABLE;
  return ERROR_CATALOGUE[error.code];
}

export function problemBody(error: ServiceError, context: ProblemContext): ProblemBody {
  const entry = entryFor(error, context.browserRoute);
  const docUrl = `${context.docsUrl.replace(/\/+$/, '')}/errors#${codeAnchor(error.code)}`;
  const body: ProblemBody = {
    type: docUrl,
    title: entry.title,
    status: entry.status,
    code: error.code,
    retryable: entry.retryable,
    doc_url: docUrl,
    target_status: error.targetStatus,
  };
  if (error.detail) body.detail = error.detail;
  if (context.requestId) body.request_id = context.requestId;
  if (context.instance) body.instance = context.instance;
  if (error.retryAfterSeconds !== undefined) body.retry_after_seconds = error.retryAfterSeconds;
  if (error.warnings && error.warnings.length > 0) body.warnings = error.warnings;
  if (error.diagnostics) body.diagnostics = error.diagnostics;
  return body;
}
