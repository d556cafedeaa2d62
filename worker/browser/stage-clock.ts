import type { TimelineStep } from '../../lib/errors/index.js';

/** Times the stages of one render for the result's timeline and for error diagnostics. */
export class StageClock {
  readonly steps: TimelineStep[] = [];
  private current: string | null = null;
  readonly startedAt = Date.now();

  /** The stage running now (or last run), for `diagnostics.failed_at`. */
  get stage(): string {
    return this.current ?? 'start';
  }

  async run<T>(stage: string, work: () => Promise<T>): Promise<T> {
    this.current = stage;
    const began = Date.now();
    try {
      const value = await work();
      this.steps.push({ stage, ms: Date.now() - began, ok: true });
      return value;
    } catch (error) {
      this.steps.push({ stage, ms: Date.now() - began, ok: false });
      throw error;
    }
  }

  elapsed(): number {
    return Date.now() - this.startedAt;
  }
}
