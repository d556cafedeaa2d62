import { toServiceError, type WireError } from '../../lib/errors/index.js';
import { processContent, type ContentInput, type ContentOutput } from './pipeline.js';

export type ContentTaskResult = { ok: true; output: ContentOutput } | { ok: false; error: WireError };

/** Piscina task: runs in a worker thread; errors travel back as wire data so they stay ServiceErrors. */
export default function runContentTask(input: ContentInput): ContentTaskResult {
  try {
    return { ok: true, output: processContent(input) };
  } catch (error) {
    return { ok: false, error: toServiceError(error).toWire() };
  }
}
