import { readFileSync } from 'node:fs';
import { CliUsageError } from '../exit-codes.js';

/** docs/api-reference.md "Limits": items per job across appends. */
export const MAX_ITEMS_PER_JOB = 100_000;

export type BatchItem = { url: string } & Record<string, unknown>;

export interface BatchInput {
  items: BatchItem[];
  /** True when every line was a bare URL: sent as `urls`, else as `items`. */
  plainUrls: boolean;
  /** `FILE:LINE` of each item (lines count from 1; blank and `#` lines are not items). */
  where: string[];
}

/**
 * Lines of a batch file: a bare URL, or a JSON object (`{"url": ..., "external_id": ..., overrides}`).
 * Blank lines and lines starting with `#` are skipped; anything else unreadable names its line.
 */
export function parseBatchInput(text: string, source: string): BatchInput {
  const items: BatchItem[] = [];
  const where: string[] = [];
  let plainUrls = true;
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const at = `${source}:${index + 1}`;
    where.push(at);
    if (line.startsWith('{')) {
      plainUrls = false;
      items.push(jsonItem(line, at));
    } else if (/\s/.test(line)) {
      throw new CliUsageError(`${at}: expected one URL or one JSON object per line`);
    } else {
      items.push({ url: checkedUrl(line, at) });
    }
  });
  if (items.length === 0) throw new CliUsageError(`${source}: no URLs or items`);
  if (items.length > MAX_ITEMS_PER_JOB) {
    throw new CliUsageError(`${source}: ${items.length} items; a batch job holds at most ${MAX_ITEMS_PER_JOB} (split the file)`);
  }
  return { items, plainUrls, where };
}

export function readBatchInput(path: string): BatchInput {
  let text: string;
  try {
    text = readFileSync(path === '-' ? 0 : path, 'utf8');
  } catch (error) {
    throw new CliUsageError(`cannot read ${path}: ${(error as Error).message}`);
  }
  return parseBatchInput(text, path === '-' ? 'stdin' : path);
}

function jsonItem(line: string, where: string): BatchItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch (error) {
    throw new CliUsageError(`${where}: not JSON (${(error as Error).message})`);
  }
  const item = parsed as Record<string, unknown>;
  if (typeof item.url !== 'string' || item.url === '') throw new CliUsageError(`${where}: an item needs a "url" string`);
  checkedUrl(item.url, where);
  return item as BatchItem;
}

/**
 * A line's URL must at least be an absolute http(s) URL with a host, checked before anything is sent:
 * the service refuses a whole call for one bad item, which would leave a large input half submitted.
 */
function checkedUrl(url: string, where: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new CliUsageError(`${where}: "${url}" is not an absolute URL`);
  }
  if ((parsed.protocol !== 'http:' && parsed.protocol !== 'https:') || parsed.hostname === '') {
    throw new CliUsageError(`${where}: "${url}" is not an http or https URL with a host`);
  }
  return url;
}
