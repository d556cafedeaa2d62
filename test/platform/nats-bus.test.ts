import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusError } from '../../lib/bus/bus.js';
import { NatsBus } from '../../lib/bus/nats-bus.js';
import { newId } from '../../lib/ids.js';
import { NATS_URL, distributedServicesAvailable } from '../support/services.js';

const available = await distributedServicesAvailable();

describe.skipIf(!available)('NATS transport', () => {
  const namespace = `t${newId().toLowerCase()}`;
  let requester: NatsBus;
  let responder: NatsBus;

  beforeAll(async () => {
    [requester, responder] = await Promise.all([NatsBus.connect(NATS_URL, 'test-requester', namespace), NatsBus.connect(NATS_URL, 'test-responder', namespace)]);
  });
  afterAll(async () => {
    await requester?.close();
    await responder?.close();
  });

  it('carries requests and replies far above max_payload whole, both ways', async () => {
    const seen: number[] = [];
    const served = responder.serve('big.echo', 'echo', async (payload) => {
      seen.push(payload.length);
      return payload;
    }, 'responder-1');
    const payload = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    let accepted = '';
    const reply = await requester.request('big.echo', payload, { timeoutMs: 10_000, onAccepted: (id) => (accepted = id) });
    expect(seen).toEqual([payload.length]);
    expect(reply.length).toBe(payload.length);
    expect(Buffer.from(reply).equals(Buffer.from(payload))).toBe(true);
    expect(accepted).toBe('responder-1');
    await served.drain();
  });

  it('answers no_responders at once when nobody serves the subject', async () => {
    // Waiting would end in kind "timeout" (after ten minutes); "no_responders" is NATS's immediate answer.
    await expect(requester.request('nobody.home', new Uint8Array([1]), { timeoutMs: 600_000 })).rejects.toMatchObject({ kind: 'no_responders' });
  });

  it('times out a responder that never answers, and aborts on the signal', async () => {
    const served = responder.serve('slow.echo', 'slow', () => new Promise<Uint8Array>(() => undefined), 'responder-2');
    await expect(requester.request('slow.echo', new Uint8Array([1]), { timeoutMs: 300 })).rejects.toBeInstanceOf(BusError);
    const abort = new AbortController();
    const pending = requester.request('slow.echo', new Uint8Array([1]), { timeoutMs: 10_000, signal: abort.signal });
    abort.abort();
    await expect(pending).rejects.toMatchObject({ kind: 'timeout' });
    void served.drain();
  });
});
