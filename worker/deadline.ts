/**
 * A signal aborted after `ms`, or when `parent` (if any) aborts, whichever comes first. One controller
 * and one timer, cleared by `dispose`: cheaper per request than `AbortSignal.timeout` (alone or under
 * `AbortSignal.any`), whose signals keep weak references and finalizers alive until collected.
 */
export function deadline(ms: number, parent: AbortSignal | null = null): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(parent?.reason);
  const timer = setTimeout(() => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')), ms);
  timer.unref();
  if (parent?.aborted) onAbort();
  else parent?.addEventListener('abort', onAbort, { once: true });
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onAbort);
    },
  };
}
