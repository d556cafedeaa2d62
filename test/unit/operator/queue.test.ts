import { describe, expect, it } from 'vitest';
import { ReconcileQueue, type ReconcileOutcome } from '../../../operator/queue.js';

/** A reconcile whose runs the test finishes by hand. */
function controlled() {
  const runs: Array<{ key: string; finish: (error?: Error) => void }> = [];
  const reconcile = (key: string) =>
    new Promise<void>((resolve, reject) => runs.push({ key, finish: (error) => (error ? reject(error) : resolve()) }));
  return { runs, reconcile };
}

/** Lets the queue start the runs it scheduled (a run starts on a microtask). */
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('ReconcileQueue', () => {
  it('runs a key once more after an event that arrived while it was running, never twice at once', async () => {
    const { runs, reconcile } = controlled();
    const queue = new ReconcileQueue({ reconcile, concurrency: 4, backoff: { baseMs: 1, maxMs: 1 } });
    queue.enqueue('a');
    queue.enqueue('a');
    await tick();
    expect(runs.map((r) => r.key)).toEqual(['a']);
    queue.enqueue('a');
    queue.enqueue('a');
    await tick();
    expect(runs).toHaveLength(1);
    runs[0]!.finish();
    await tick();
    expect(runs.map((r) => r.key)).toEqual(['a', 'a']);
    runs[1]!.finish();
    await queue.idle();
    expect(runs).toHaveLength(2);
  });

  it('runs different keys concurrently up to the limit', async () => {
    const { runs, reconcile } = controlled();
    const queue = new ReconcileQueue({ reconcile, concurrency: 2, backoff: { baseMs: 1, maxMs: 1 } });
    for (const key of ['a', 'b', 'c']) queue.enqueue(key);
    await tick();
    expect(runs.map((r) => r.key)).toEqual(['a', 'b']);
  });

  it('retries a failed key with exponential backoff until it succeeds, then resets', async () => {
    const outcomes: ReconcileOutcome[] = [];
    let calls = 0;
    const queue = new ReconcileQueue({
      reconcile: async () => {
        calls += 1;
        if (calls < 4) throw new Error(`attempt ${calls} failed`);
      },
      concurrency: 1,
      backoff: { baseMs: 2, maxMs: 5 },
      onOutcome: (o) => outcomes.push(o),
    });
    queue.enqueue('k');
    await queue.idle();
    expect(calls).toBe(4);
    expect(outcomes.map((o) => (o.ok ? 'ok' : `retry ${o.attempt} in ${o.retryInMs}`))).toEqual(['retry 1 in 2', 'retry 2 in 4', 'retry 3 in 5', 'ok']);
  });

  it('drops scheduled retries on stop and waits for the run under way', async () => {
    const { runs, reconcile } = controlled();
    const queue = new ReconcileQueue({ reconcile, concurrency: 1, backoff: { baseMs: 60_000, maxMs: 60_000 } });
    queue.enqueue('a');
    await tick();
    const stopped = queue.stop();
    queue.enqueue('b');
    runs[0]!.finish(new Error('boom'));
    await stopped;
    expect(runs.map((r) => r.key)).toEqual(['a']);
    expect(queue.isIdle()).toBe(true);
  });
});
