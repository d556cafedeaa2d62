import { Counter, Histogram, type Registry } from 'prom-client';
import { chatClient, type ChatCall } from '../../lib/ai/chat-client.js';
import { DEFAULT_EXTRACTOR_SETTINGS, ModelExtractor, type ExtractionTask, type ExtractionUsage } from '../../lib/ai/extractor.js';
import type { Config } from '../../lib/config.js';
import { ServiceError } from '../../lib/errors/index.js';
import { METRIC_PREFIX } from '../../lib/metrics.js';
import type { ConcurrencyLimiter, ConcurrencySlot } from '../limits/concurrency.js';

/**
 * The deployment's one concurrency count toward the model: slots of the organization limiter under an
 * id no organization has (ids are ULIDs), so the PostgreSQL leases every replica shares count it in
 * distributed mode and this process counts it in the embedded default (docs/ai-extract.md).
 */
export const MODEL_SLOTS_ID = 'model:chat-completions';
const SLOT_POLL_MAX_MS = 250;

interface ModelMetrics {
  tokens: Counter<'kind'>;
  extractions: Counter<'outcome'>;
  seconds: Histogram;
}

function createMetrics(registry: Registry): ModelMetrics {
  const registers = [registry];
  return {
    tokens: new Counter({ name: `${METRIC_PREFIX}ai_extract_tokens_total`, help: 'Tokens the extraction model reported, by kind (prompt, completion).', labelNames: ['kind'], registers }),
    extractions: new Counter({ name: `${METRIC_PREFIX}ai_extract_total`, help: 'Model extractions by outcome (success or the error code).', labelNames: ['outcome'], registers }),
    seconds: new Histogram({ name: `${METRIC_PREFIX}ai_extract_seconds`, help: 'Wall time of one model extraction: slot wait, calls, retries and repair.', buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60], registers }),
  };
}

/** `ai_extract`'s model as this gateway reaches it: the extractor, the shared slots, the metrics. */
export class ModelExtraction {
  readonly model: string;
  readonly inputMaxChars: number;

  constructor(
    private readonly extractor: ModelExtractor,
    private readonly slots: ConcurrencyLimiter,
    private readonly metrics: ModelMetrics,
    private readonly settings: { model: string; concurrency: number; inputMaxChars: number },
  ) {
    this.model = settings.model;
    this.inputMaxChars = settings.inputMaxChars;
  }

  /** Waits for a slot (503 when none frees up within the budget), then runs the extraction. */
  async extract(task: ExtractionTask, usage: ExtractionUsage): Promise<Record<string, unknown>> {
    const started = performance.now();
    let slot: ConcurrencySlot | null = null;
    try {
      slot = await this.acquireSlot(task.deadlineAt);
      const data = await this.extractor.extract(task, usage);
      this.metrics.extractions.inc({ outcome: 'success' });
      return data;
    } catch (error) {
      this.metrics.extractions.inc({ outcome: error instanceof ServiceError ? error.code : 'ERR::INTERNAL::ERROR' });
      throw error;
    } finally {
      await slot?.release();
      this.metrics.tokens.inc({ kind: 'prompt' }, usage.prompt_tokens);
      this.metrics.tokens.inc({ kind: 'completion' }, usage.completion_tokens);
      this.metrics.seconds.observe((performance.now() - started) / 1000);
    }
  }

  private async acquireSlot(deadlineAt: number): Promise<ConcurrencySlot> {
    let delay = 5;
    for (;;) {
      try {
        return await this.slots.acquire(MODEL_SLOTS_ID, this.settings.concurrency);
      } catch (error) {
        if (!(error instanceof ServiceError) || error.code !== 'ERR::LIMIT::CONCURRENCY_EXCEEDED') throw error;
      }
      if (Date.now() + delay >= deadlineAt) {
        throw new ServiceError(
          'ERR::INTERNAL::UNAVAILABLE',
          `ai_extract: all ${this.settings.concurrency} model slots of the deployment stayed busy for the scrape's time budget`,
          { retryAfterSeconds: 1 },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, SLOT_POLL_MAX_MS);
    }
  }
}

/** Null when no model is configured: `ai_extract` then answers 503 before anything is spent. */
export function createModelExtraction(config: Config, slots: ConcurrencyLimiter, registry: Registry, call?: ChatCall): ModelExtraction | null {
  if (config.AI_BASE_URL === undefined || config.AI_MODEL === undefined) return null;
  const chat = call ?? chatClient({ baseUrl: config.AI_BASE_URL, apiKey: config.AI_API_KEY ?? null, model: config.AI_MODEL });
  const extractor = new ModelExtractor(chat, { ...DEFAULT_EXTRACTOR_SETTINGS, timeoutMs: config.AI_TIMEOUT_MS });
  return new ModelExtraction(extractor, slots, createMetrics(registry), {
    model: config.AI_MODEL,
    concurrency: config.AI_CONCURRENCY,
    inputMaxChars: config.AI_INPUT_MAX_CHARS,
  });
}
