import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { BusError, type Decoded } from '../../../../lib/bus/bus.js';
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

describe('the in-process bus, reply budget', () => {
  const Any = z.unknown();

  it('refuses a reply over 64 MiB by default, as NATS does, and hands over one under it', async () => {
    const bus = new MemoryBus();
    const sizes = new Map([['big', 65 * 1024 * 1024], ['fits', 63 * 1024 * 1024]]);
    bus.serveJson('scrape', 'workers', z.string(), async (message) => ({ content: 'é'.repeat((sizes.get(message.ok ? message.value : '') ?? 0) / 2), links: [] }), 'worker-1');
    const refused = await bus.requestJson('scrape', 'big', Any, { timeoutMs: 10_000 }).then(() => null, (error: unknown) => error);
    expect(refused).toBeInstanceOf(BusError);
    expect(refused).toMatchObject({ kind: 'too_large', message: expect.stringMatching(/^reply too large: reply on scrape is at least \d+ bytes, over the 67108864-byte budget$/) });
    const fits = await bus.requestJson('scrape', 'fits', Any, { timeoutMs: 10_000 });
    expect(fits.ok).toBe(true);
  });

  it('counts what JSON would carry without serialising: many small entries add up, bytes count as bytes', async () => {
    const bus = new MemoryBus({ maxReplyBytes: 100_000 });
    const entries = Array.from({ length: 2000 }, (_, i) => ({ url: `https://a.example/${i}`, status: 200, body: 'x'.repeat(20) }));
    bus.serveJson('many', 'workers', Any, async () => ({ entries }), 'worker-1');
    bus.serve('bytes', 'workers', async () => new Uint8Array(100_001), 'worker-2');
    const stringify = vi.spyOn(JSON, 'stringify');
    try {
      const refused = await bus.requestJson('many', {}, Any, { timeoutMs: 10_000 }).then(() => null, (error: unknown) => error);
      expect(refused).toMatchObject({ kind: 'too_large' });
      expect(stringify).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
    }
    expect(JSON.stringify({ entries }).length).toBeGreaterThan(100_000);
    await expect(bus.request('bytes', new Uint8Array([1]), { timeoutMs: 10_000 })).rejects.toMatchObject({ kind: 'too_large' });
    const small = new MemoryBus({ maxReplyBytes: 100_000 });
    small.serveJson('few', 'workers', Any, async () => ({ entries: entries.slice(0, 100) }), 'worker-1');
    expect((await small.requestJson('few', {}, Any, { timeoutMs: 10_000 })).ok).toBe(true);
  });
});
