import { Cancellation, type JobSignal } from './cancellation.js';

function timeoutError(): DOMException {
  return new DOMException('The operation was aborted due to timeout', 'TimeoutError');
}

/**
 * A signal aborted after `ms`, or when `parent` (if any) aborts, whichever comes first. One controller
 * and one timer, cleared by `dispose`: cheaper per request than `AbortSignal.timeout` (alone or under
 * `AbortSignal.any`), whose signals keep weak references and finalizers alive until collected.
 */
export function deadline(ms: number, parent: JobSignal | null = null): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const linked = linkTo(controller, ms, parent);
  return { signal: controller.signal, dispose: linked };
}

/** `deadline` for the worker's own code, which takes a Cancellation (worker/cancellation.ts) instead of an AbortSignal. */
export function cancelAfter(ms: number, parent: JobSignal | null = null): { signal: Cancellation; dispose(): void } {
  const cancellation = new Cancellation();
  const linked = linkTo(cancellation, ms, parent);
  return { signal: cancellation, dispose: linked };
}

/** Aborts `target` after `ms` or with `parent`; returns what undoes both. */
function linkTo(target: { abort(reason?: unknown): void }, ms: number, parent: JobSignal | null): () => void {
  const onAbort = (): void => target.abort(parent?.reason);
  const timer = setTimeout(() => target.abort(timeoutError()), ms);
  timer.unref();
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return () => {
    clearTimeout(timer);
    parent?.removeEventListener('abort', onAbort);
  };
}

/** Whether `work` settles (fulfilled or rejected) within `ms`; it goes on either way. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const settled = await Promise.race([
    work.then(() => true, () => true),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]);
  clearTimeout(timer);
  return settled;
}
