import { afterEach, describe, expect, it, vi } from 'vitest';
import { Cancellation, toAbortSignal } from '../../../worker/cancellation.js';
import { cancelAfter } from '../../../worker/deadline.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Cancellation', () => {
  it('aborts once, with an AbortError by default, calling its listeners at once', () => {
    const cancellation = new Cancellation();
    const heard = vi.fn();
    cancellation.addEventListener('abort', heard, { once: true });
    cancellation.abort();
    cancellation.abort(new Error('later'));
    expect(heard).toHaveBeenCalledTimes(1);
    expect(cancellation.aborted).toBe(true);
    expect(cancellation.reason).toBeInstanceOf(DOMException);
    expect((cancellation.reason as DOMException).name).toBe('AbortError');
  });

  it('gives a real AbortSignal that follows it, made before or after the abort', () => {
    const early = new Cancellation();
    const signal = toAbortSignal(early);
    expect(signal).toBeInstanceOf(AbortSignal);
    expect(signal.aborted).toBe(false);
    const reason = new Error('stop');
    early.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);

    const late = new Cancellation();
    late.abort(reason);
    expect(toAbortSignal(late).reason).toBe(reason);
    expect(toAbortSignal(late)).toBe(toAbortSignal(late));
  });

  it('passes a real AbortSignal through', () => {
    const signal = new AbortController().signal;
    expect(toAbortSignal(signal)).toBe(signal);
  });
});

describe('cancelAfter', () => {
  it('aborts with a TimeoutError once its time has passed', () => {
    vi.useFakeTimers();
    const { signal } = cancelAfter(100);
    vi.advanceTimersByTime(99);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("aborts with its parent's reason, also a parent already aborted", () => {
    const parent = new Cancellation();
    const { signal } = cancelAfter(60_000, parent);
    const reason = new Error('worker stopping');
    parent.abort(reason);
    expect(signal.reason).toBe(reason);
    expect(cancelAfter(60_000, parent).signal.reason).toBe(reason);
    const aborted = new AbortController();
    aborted.abort(reason);
    expect(cancelAfter(60_000, aborted.signal).signal.reason).toBe(reason);
  });

  it('no longer aborts once disposed', () => {
    vi.useFakeTimers();
    const parent = new Cancellation();
    const { signal, dispose } = cancelAfter(100, parent);
    dispose();
    parent.abort();
    vi.advanceTimersByTime(200);
    expect(signal.aborted).toBe(false);
  });
});
