import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { Decoded } from '../../../../lib/bus/bus.js';
import { MemoryBus } from '../../../../lib/bus/memory-bus.js';

const Job = z.object({ id: z.string(), tags: z.array(z.string()) });
const Reply = z.object({ seen: z.string() });
type Job = z.infer<typeof Job>;

function serveEcho(bus: MemoryBus, onJob: (message: Decoded<Job>) => unknown = () => undefined): void {
  bus.serveJson('jobs', 'workers', Job, async (message) => {
    onJob(message);
    return message.ok ? { seen: message.value.id } : { seen: 'malformed' };
  }, 'worker-1');
}

describe('the in-process bus, JSON request/reply', () => {
  it('hands the job and the reply over as they are, unchecked, by default', async () => {
    const bus = new MemoryBus();
    const job = { id: 'a', tags: ['x'] };
    let received: unknown;
    serveEcho(bus, (message) => (received = message.ok ? message.value : null));
    const reply = await bus.requestJson('jobs', job, Reply, { timeoutMs: 1000 });
    expect(reply).toEqual({ ok: true, value: { seen: 'a' } });
    expect(received).toBe(job);
  });

  it('when checking, gives the worker what a NATS worker would get: a job its schema refuses is malformed', async () => {
    const bus = new MemoryBus({ checkMessages: true });
    serveEcho(bus);
    const reply = await bus.requestJson('jobs', { id: 7, tags: [] }, Reply, { timeoutMs: 1000 });
    expect(reply).toEqual({ ok: true, value: { seen: 'malformed' } });
  });

  it('when checking, refuses a job that would not survive JSON as it is', async () => {
    const bus = new MemoryBus({ checkMessages: true });
    serveEcho(bus);
    // A Date becomes a string on the wire: a NATS worker would see something else than this one.
    const Dated = z.object({ id: z.string(), tags: z.array(z.string()), at: z.unknown() });
    bus.serveJson('dated', 'workers', Dated, async () => ({ seen: 'x' }), 'worker-2');
    await expect(bus.requestJson('dated', { id: 'a', tags: [], at: new Date(0) }, Reply, { timeoutMs: 1000 })).rejects.toThrow(/differs/);
  });

  it('when checking, freezes what crosses, so a worker mutating its job fails loudly', async () => {
    const bus = new MemoryBus({ checkMessages: true });
    bus.serveJson('jobs', 'workers', Job, async (message) => {
      if (message.ok) message.value.tags.push('added');
      return { seen: 'mutated' };
    }, 'worker-1');
    await expect(bus.requestJson('jobs', { id: 'a', tags: [] }, Reply, { timeoutMs: 1000 })).rejects.toThrow(TypeError);
  });

  it('checks the reply against its schema too', async () => {
    const bus = new MemoryBus({ checkMessages: true });
    bus.serveJson('jobs', 'workers', Job, async () => ({ seen: 42 }), 'worker-1');
    const reply = await bus.requestJson('jobs', { id: 'a', tags: [] }, Reply, { timeoutMs: 1000 });
    expect(reply.ok).toBe(false);
  });
});
