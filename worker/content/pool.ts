import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { ServiceError } from '../../lib/errors/index.js';
import { deadline } from '../deadline.js';
import { POOL_DEFAULTS } from './content-limits.js';
import { answersAsFetched, type ContentInput, type ContentOutput } from './pipeline.js';
import runContentTask, { type ContentTaskResult } from './pool-task.js';

export interface ContentPoolOptions {
  /** Worker threads; default: one per core. */
  threads?: number;
  /** Deadline per page, queue wait included; a task still running then is killed with its thread. */
  timeoutMs?: number;
  /** Old-generation heap per thread; a page needing more kills its thread. */
  maxHeapMb?: number;
  /** Largest page (characters) answered as fetched that runs on the caller's thread; 0: none. */
  inlineMaxChars?: number;
  /** Largest page (characters) converted (markdown, text, selection, envelope) on the caller's thread; 0: none. */
  convertInlineMaxChars?: number;
}

/** From compiled JS the task is a sibling .js file; under vitest/tsx it is .ts and needs tsx's loader. */
function taskScript(): { filename: string; execArgv: string[] } {
  const self = fileURLToPath(import.meta.url);
  const typescript = self.endsWith('.ts');
  const filename = fileURLToPath(new URL(typescript ? './pool-task.ts' : './pool-task.js', import.meta.url));
  return { filename, execArgv: typescript ? ['--import', 'tsx'] : [] };
}

function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** Whether `text` opens at most `limit` tags (counted as '<'), read only as far as needed. */
function tagsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (let at = text.indexOf('<'); at >= 0; at = text.indexOf('<', at + 1)) if (++count > limit) return false;
  return true;
}

/**
 * Runs the content pipeline on worker threads, so parsing and conversion never block the event
 * loop and one hostile page is bounded in time and memory. A small page answered as fetched (no
 * conversion: only the needs-JavaScript scan, linear in its length), and a page of so few characters
 * and tags that its conversion costs about what the hop to a thread and back does, run on the caller's thread instead
 * (docs/content.md, "Where a page is converted").
 */
export class ContentPool {
  private readonly pool: Piscina<ContentInput, ContentTaskResult>;
  private readonly timeoutMs: number;
  private readonly maxHeapMb: number;
  private readonly inlineMaxChars: number;
  private readonly convertInlineMaxChars: number;

  constructor(opts: ContentPoolOptions = {}) {
    const threads = Math.max(1, opts.threads ?? availableParallelism());
    this.timeoutMs = opts.timeoutMs ?? POOL_DEFAULTS.timeoutMs;
    this.maxHeapMb = opts.maxHeapMb ?? POOL_DEFAULTS.maxHeapMb;
    this.inlineMaxChars = opts.inlineMaxChars ?? POOL_DEFAULTS.inlineMaxChars;
    this.convertInlineMaxChars = opts.convertInlineMaxChars ?? POOL_DEFAULTS.convertInlineMaxChars;
    const { filename, execArgv } = taskScript();
    this.pool = new Piscina<ContentInput, ContentTaskResult>({
      filename,
      execArgv,
      // All threads start (and load the pipeline) with the pool: a thread started under load
      // competes with the renders it serves for the same cores, for about a second under tsx.
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: this.maxHeapMb, stackSizeMb: 8 },
    });
  }

  async run(input: ContentInput): Promise<ContentOutput> {
    const result = this.runsInline(input) ? runContentTask(input) : await this.onThread(input);
    if (!result.ok) throw ServiceError.fromWire(result.error);
    return result.output;
  }

  private runsInline(input: ContentInput): boolean {
    const text = input.page.text;
    if (text === null) return false;
    if (text.length <= this.convertInlineMaxChars && tagsAtMost(text, POOL_DEFAULTS.convertInlineMaxTags)) return true;
    return text.length <= this.inlineMaxChars && answersAsFetched(input);
  }

  private async onThread(input: ContentInput): Promise<ContentTaskResult> {
    const timeout = deadline(this.timeoutMs);
    try {
      return await this.pool.run(input, { signal: timeout.signal });
    } catch (error) {
      throw this.failure(error, timeout.signal, input.page.status);
    } finally {
      timeout.dispose();
    }
  }

  private failure(error: unknown, signal: AbortSignal, targetStatus: number): ServiceError {
    if (signal.aborted) {
      return new ServiceError('ERR::ENGINE::RENDER_FAILED', `content processing exceeded ${this.timeoutMs} ms and was stopped`, {
        targetStatus,
        cause: error,
      });
    }
    if (errorCode(error) === 'ERR_WORKER_OUT_OF_MEMORY') {
      return new ServiceError('ERR::ENGINE::RENDER_FAILED', `content processing exceeded ${this.maxHeapMb} MB of memory and was stopped`, {
        targetStatus,
        cause: error,
      });
    }
    return new ServiceError('ERR::INTERNAL::ERROR', 'content processing failed unexpectedly', { targetStatus, cause: error });
  }

  async close(): Promise<void> {
    await this.pool.close({ force: true });
  }
}
