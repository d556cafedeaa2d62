import { HTTP_METHODS, type HttpMethod } from '../../lib/scrape/types.js';

/** The scrape parameters the fetch engine reads, with the defaults of lib/scrape/defaults.ts for anything absent. */
export interface FetchParams {
  url: string;
  method: HttpMethod;
  impersonate: boolean;
  proxy: string | null;
  proxy_verify: boolean;
  custom_headers: Record<string, string>;
}

function isMethod(value: unknown): value is HttpMethod {
  return typeof value === 'string' && (HTTP_METHODS as readonly string[]).includes(value.toUpperCase());
}

function stringRecord(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null) return {};
  const record: Record<string, string> = {};
  for (const [name, entry] of Object.entries(value)) if (typeof entry === 'string') record[name] = entry;
  return record;
}

export function readFetchParams(params: Record<string, unknown>): FetchParams {
  return {
    url: typeof params.url === 'string' ? params.url : '',
    method: isMethod(params.method) ? (params.method.toUpperCase() as HttpMethod) : 'GET',
    impersonate: params.impersonate !== false,
    proxy: typeof params.proxy === 'string' && params.proxy !== '' ? params.proxy : null,
    proxy_verify: params.proxy_verify === true,
    custom_headers: stringRecord(params.custom_headers),
  };
}
