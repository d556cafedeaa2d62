import { createWriteStream, renameSync, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ApiClient } from '../client.js';

export const RESULTS_PAGE_LIMIT = 500;
export const FAILURES_SHOWN = 10;

export interface ResultLine {
  seq: number;
  status: string;
  credits_micro: number;
  result?: { content_type?: string; bytes?: number; content?: string; content_encoding?: string; truncated?: boolean; omitted?: boolean; unavailable?: boolean };
  error?: { code: string; retryable: boolean; detail?: string };
  [key: string]: unknown;
}

export interface ResultsPage {
  lines: string[];
  nextCursor: string | null;
}

/** One page of `GET /v1/batch/{id}/results` from a cursor (null: from the start). */
export async function resultsPage(client: ApiClient, jobId: string, cursor: string | null, status?: string): Promise<ResultsPage> {
  for (let attempt = 0; ; attempt += 1) {
    const response = await client.request('GET', `/v1/batch/${jobId}/results`, { query: { limit: RESULTS_PAGE_LIMIT, cursor: cursor ?? undefined, status } });
    const text = response.body.toString('utf8');
    // docs/batch.md: a stream that ends early signals a dropped connection; the same cursor is asked again.
    if (text !== '' && !text.endsWith('\n') && attempt === 0) continue;
    return { lines: text.split('\n').filter((line) => line !== ''), nextCursor: response.headers.get('x-next-cursor') };
  }
}

/** Where a follower stands in a job's results: the cursor to ask from and the last seq written. */
export interface ResultsPosition {
  cursor: string | null;
  lastSeq: number;
}

export const START: ResultsPosition = { cursor: null, lastSeq: -1 };

/**
 * Every line after `position` that is finished now. While the job runs, an empty page carries no
 * cursor, so the last one is kept and asked again on the next poll. A job that ends between two pages
 * can answer a last page without a cursor; lines at or below `lastSeq` are then dropped, not written twice.
 */
export async function drainResults(client: ApiClient, jobId: string, position: ResultsPosition, onLines: (lines: string[]) => Promise<void>): Promise<ResultsPosition> {
  let { cursor, lastSeq } = position;
  for (;;) {
    const page = await resultsPage(client, jobId, cursor);
    const fresh = page.lines.filter((line) => (JSON.parse(line) as { seq: number }).seq > lastSeq);
    if (fresh.length > 0) {
      await onLines(fresh);
      lastSeq = (JSON.parse(fresh.at(-1)!) as { seq: number }).seq;
    }
    if (page.nextCursor === null || page.lines.length === 0) return { cursor, lastSeq };
    cursor = page.nextCursor;
  }
}

/**
 * A result line with its whole body: payloads the results page left out for size (`omitted`) or cut
 * (`truncated`) are read from `GET /v1/batch/{id}/tasks/{seq}/content`.
 */
export async function withFullContent(client: ApiClient, jobId: string, text: string): Promise<string> {
  const line = JSON.parse(text) as ResultLine;
  if (line.status !== 'succeeded' || !line.result || !(line.result.omitted || line.result.truncated)) return text;
  const response = await client.request('GET', `/v1/batch/${jobId}/tasks/${line.seq}/content`);
  const contentType = response.headers.get('content-type') ?? line.result.content_type ?? 'application/octet-stream';
  const textual = /^(text\/|application\/(.+\+)?(json|xml|javascript))/i.test(contentType);
  line.result = {
    content_type: contentType,
    bytes: line.result.bytes,
    ...(textual ? {} : { content_encoding: 'base64' }),
    content: textual ? response.body.toString('utf8') : response.body.toString('base64'),
  };
  return JSON.stringify(line);
}

/** Where result lines go: a file (written as a temporary and renamed when complete) or stdout. */
export class ResultsSink {
  private stream: WriteStream | NodeJS.WritableStream;
  lines = 0;
  /** The first failed items seen, for the summary (FAILURES_SHOWN at most), and how many failed in all. */
  failures: Array<{ seq: number; url: string; code: string; detail?: string }> = [];
  failedCount = 0;

  constructor(readonly path: string) {
    this.stream = path === '-' ? process.stdout : createWriteStream(path, { flags: 'w' });
  }

  get toStdout(): boolean {
    return this.path === '-';
  }

  async write(lines: string[]): Promise<void> {
    for (const line of lines) {
      this.lines += 1;
      if (line.includes('"status":"failed"')) this.noteFailure(line);
      if (!this.stream.write(`${line}\n`)) await once(this.stream, 'drain');
    }
  }

  private noteFailure(text: string): void {
    const line = JSON.parse(text) as ResultLine & { url?: string };
    if (line.status !== 'failed') return;
    this.failedCount += 1;
    if (this.failures.length < FAILURES_SHOWN) {
      this.failures.push({ seq: line.seq, url: String(line.url ?? ''), code: line.error?.code ?? '?', ...(line.error?.detail ? { detail: line.error.detail } : {}) });
    }
  }

  async close(): Promise<void> {
    if (this.toStdout) return;
    const stream = this.stream as WriteStream;
    stream.end();
    await once(stream, 'close');
  }
}

/**
 * Every result line from the start, with `result` payloads (the service attaches them only to a
 * terminal job's lines) made whole. To a file it is written beside `path` and renamed over it, so a
 * reader never sees half of it; `-` writes to stdout.
 */
export async function writeCompleteResults(client: ApiClient, jobId: string, path: string, status?: string): Promise<number> {
  const temporary = path === '-' ? '-' : `${path}.partial`;
  const sink = new ResultsSink(temporary);
  let cursor: string | null = null;
  try {
    do {
      const page = await resultsPage(client, jobId, cursor, status);
      const full: string[] = [];
      for (const line of page.lines) full.push(await withFullContent(client, jobId, line));
      await sink.write(full);
      cursor = page.lines.length > 0 ? page.nextCursor : null;
    } while (cursor !== null);
  } finally {
    await sink.close();
  }
  if (temporary !== path) renameSync(temporary, path);
  return sink.lines;
}
