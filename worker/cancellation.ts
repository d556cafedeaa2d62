/**
 * The abort signal of the worker's own deadlines (a job's, a fetch attempt's): what the worker's code
 * reads of an AbortSignal (`aborted`, `reason`, 'abort' listeners) on a plain EventTarget. Node 20
 * makes each AbortSignal by changing an EventTarget's prototype, about 2.5 µs and a slow object per
 * signal, and a fetch job needed two (docs/fetch-engine.md, "The worker per job"). `toAbortSignal` makes a real
 * one, once, for the APIs that need it (impit, `AbortSignal.any`).
 */
export class Cancellation extends EventTarget {
  aborted = false;
  reason: unknown = undefined;
  private real: AbortController | null = null;

  /** As AbortController.abort: once, with an AbortError when no reason is given, listeners called at once. */
  abort(reason: unknown = new DOMException('This operation was aborted', 'AbortError')): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.real?.abort(reason);
    this.dispatchEvent(new Event('abort'));
  }

  toAbortSignal(): AbortSignal {
    if (this.real === null) {
      this.real = new AbortController();
      if (this.aborted) this.real.abort(this.reason);
    }
    return this.real.signal;
  }
}

/** A job's or an attempt's signal as engines get it: a real AbortSignal (tests, callers of their own) or the worker's Cancellation. */
export type JobSignal = AbortSignal | Cancellation;

export function toAbortSignal(signal: JobSignal): AbortSignal {
  return signal instanceof Cancellation ? signal.toAbortSignal() : signal;
}
