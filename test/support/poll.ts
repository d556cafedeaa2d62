/**
 * Polls `probe` until `done` holds, for state that changes outside the test's control (processes,
 * heartbeats, background passes). Throws with the last value when `timeoutMs` passes.
 */
export async function until<T>(probe: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
