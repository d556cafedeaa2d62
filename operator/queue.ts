/** What became of one reconcile of a key. */
export type ReconcileOutcome =
  | { ok: true; key: string; seconds: number }
  | { ok: false; key: string; seconds: number; error: unknown; attempt: number; retryInMs: number };

export interface QueueOptions {
  reconcile: (key: string) => Promise<void>;
  /** Reconciles of different keys that may run at once. One key never runs twice at once. */
  concurrency: number;
  /** A failed key runs again after baseMs · 2^(failures-1), capped at maxMs; a success resets it. */
  backoff: { baseMs: number; maxMs: number };
  onOutcome?: (outcome: ReconcileOutcome) => void;
  onDepth?: (depth: number) => void;
}

/**
 * A work queue keyed by object, in the manner of client-go's workqueue: a key waits at most once;
 * an event for a key being reconciled marks it dirty, and it runs again after the current run ends,
 * so two reconciles of one object never overlap. Failures are retried with exponential backoff,
 * never dropped.
 */
export class ReconcileQueue {
  private readonly pending: string[] = [];
  private readonly pendingKeys = new Set<string>();
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly retryTimers = new Map<string, NodeJS.Timeout>();
  private readonly failures = new Map<string, number>();
  private readonly runs = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private stopped = false;

  constructor(private readonly options: QueueOptions) {}

  enqueue(key: string): void {
    if (this.stopped) return;
    const timer = this.retryTimers.get(key);
    if (timer) {
      clearTimeout(timer);
      this.retryTimers.delete(key);
    }
    if (this.running.has(key)) {
      this.dirty.add(key);
    } else if (!this.pendingKeys.has(key)) {
      this.pending.push(key);
      this.pendingKeys.add(key);
    }
    this.pump();
  }

  /** Resolves once nothing waits, runs or is scheduled for a retry. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  isIdle(): boolean {
    return this.pending.length === 0 && this.running.size === 0 && this.retryTimers.size === 0;
  }

  /** Takes no more keys, drops scheduled retries, and waits for the reconciles under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.retryTimers.values()) clearTimeout(timer);
    this.retryTimers.clear();
    this.pending.length = 0;
    this.pendingKeys.clear();
    this.dirty.clear();
    await Promise.allSettled([...this.runs]);
    this.settle();
  }

  private pump(): void {
    while (!this.stopped && this.running.size < this.options.concurrency && this.pending.length > 0) {
      const key = this.pending.shift()!;
      this.pendingKeys.delete(key);
      this.run(key);
    }
    this.report();
  }

  private run(key: string): void {
    this.running.add(key);
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    const run = Promise.resolve()
      .then(() => this.options.reconcile(key))
      .then(
        () => {
          this.failures.delete(key);
          this.options.onOutcome?.({ ok: true, key, seconds: seconds() });
        },
        (error: unknown) => this.scheduleRetry(key, error, seconds()),
      )
      .finally(() => {
        this.running.delete(key);
        this.runs.delete(run);
        if (this.dirty.delete(key)) this.enqueue(key);
        this.pump();
        this.settle();
      });
    this.runs.add(run);
  }

  private scheduleRetry(key: string, error: unknown, seconds: number): void {
    const attempt = (this.failures.get(key) ?? 0) + 1;
    this.failures.set(key, attempt);
    const { baseMs, maxMs } = this.options.backoff;
    const retryInMs = Math.min(maxMs, baseMs * 2 ** (attempt - 1));
    this.options.onOutcome?.({ ok: false, key, seconds, error, attempt, retryInMs });
    // A newer event for the key runs it again right away; the failure count still grows.
    if (this.stopped || this.dirty.has(key)) return;
    this.retryTimers.set(
      key,
      setTimeout(() => {
        this.retryTimers.delete(key);
        this.enqueue(key);
      }, retryInMs),
    );
  }

  private report(): void {
    this.options.onDepth?.(this.pending.length + this.retryTimers.size);
  }

  private settle(): void {
    this.report();
    if (!this.isIdle() && !this.stopped) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}
