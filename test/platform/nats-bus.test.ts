import { connect, headers as natsHeaders, RequestStrategy, type Msg, type NatsConnection } from 'nats';
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
  /** A plain nats.js connection, speaking the protocol as gateways and workers of earlier versions did. */
  let raw: NatsConnection;

  beforeAll(async () => {
    // The responder acknowledges a request still running after 50 ms instead of a second (ACCEPT_WITHIN_MS).
    [requester, responder] = await Promise.all([
      NatsBus.connect(NATS_URL, 'test-requester', namespace),
      NatsBus.connect(NATS_URL, 'test-responder', namespace, { acceptWithinMs: 50 }),
    ]);
    raw = await connect({ servers: NATS_URL, name: 'test-earlier-version' });
  });
  afterAll(async () => {
    await requester?.close();
    await responder?.close();
    await raw?.close();
  });

  it('carries requests and replies far above max_payload whole, both ways, acknowledged while running', async () => {
    const seen: number[] = [];
    let accepted: (id: string) => void = () => undefined;
    const acceptance = new Promise<string>((resolve) => (accepted = resolve));
    // The handler answers only once the requester has the acceptance: a request still running is acknowledged.
    const served = responder.serve('big.echo', 'echo', async (payload) => {
      seen.push(payload.length);
      await acceptance;
      return payload;
    }, 'responder-1');
    const payload = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    const reply = await requester.request('big.echo', payload, { timeoutMs: 10_000, onAccepted: accepted });
    expect(seen).toEqual([payload.length]);
    expect(reply.length).toBe(payload.length);
    expect(Buffer.from(reply).equals(Buffer.from(payload))).toBe(true);
    expect(await acceptance).toBe('responder-1');
    await served.drain();
  });

  it('bounds a reply: a responder refuses to send one over its budget, a requester stops reading one over its own', async () => {
    const twoMiB = new Uint8Array(2 * 1024 * 1024).fill(7);
    const strict = await NatsBus.connect(NATS_URL, 'test-strict', namespace, { maxReplyBytes: 1024 * 1024 });
    try {
      const refused = strict.serve('big.refused', 'refused', async () => twoMiB, 'responder-strict');
      // A round trip flushes the subscription to the server before another connection asks.
      await strict.ping(5000);
      const failure = await requester.request('big.refused', new Uint8Array([1]), { timeoutMs: 10_000 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(BusError);
      expect(failure).toMatchObject({ kind: 'too_large', message: expect.stringContaining(`${twoMiB.length} bytes, over the 1048576-byte budget`) });
      await refused.drain();
      const generous = responder.serve('big.unread', 'unread', async () => twoMiB, 'responder-generous');
      await responder.ping(5000);
      const unread = await strict.request('big.unread', new Uint8Array([1]), { timeoutMs: 10_000 }).then(
        () => null,
        (error: unknown) => error,
      );
      expect(unread).toMatchObject({ kind: 'too_large', message: expect.stringContaining('over the 1048576-byte budget') });
      await generous.drain();
    } finally {
      await strict.close();
    }
  });

  it('sends no acceptance for a request answered within its acceptance window, only the reply and the sentinel', async () => {
    // A window far longer than the handler's wait, which does I/O of its own first (as a quick fetch does).
    const patient = await NatsBus.connect(NATS_URL, 'test-patient-responder', namespace, { acceptWithinMs: 600_000 });
    const served = patient.serve('quick.echo', 'quick', async (payload) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      return payload;
    }, 'responder-6');
    await patient.ping(5000);
    const messages: Msg[] = [];
    for await (const msg of await raw.requestMany(`${namespace}.quick.echo`, new Uint8Array([7]), { strategy: RequestStrategy.SentinelMsg, maxWait: 10_000 })) {
      messages.push(msg);
      if (msg.data.length === 0) break;
    }
    expect(messages.map((msg) => msg.headers?.get('Trawler-Accepted') ?? '')).toEqual(['', '']);
    expect([...messages[0].data]).toEqual([7]);
    expect(messages[0].headers?.get('Trawler-Final')).toBe('1');
    expect(messages[1].data.length).toBe(0);
    await served.drain();
    await patient.close();
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

  it('takes a reply from a responder of an earlier version, which ends it with the sentinel alone', async () => {
    const text = new TextEncoder();
    raw.subscribe(`${namespace}.old.responder`, {
      queue: 'old',
      callback: (_error, msg) => {
        const accepted = natsHeaders();
        accepted.set('Trawler-Accepted', 'old-responder');
        msg.respond(new Uint8Array([0x31]), { headers: accepted });
        const first = natsHeaders();
        first.set('Trawler-Length', '11');
        msg.respond(text.encode('hello '), { headers: first });
        msg.respond(text.encode('world'));
        msg.respond(new Uint8Array(0));
      },
    });
    await raw.flush();
    let accepted = '';
    const reply = await requester.request('old.responder', new Uint8Array([1]), { timeoutMs: 10_000, onAccepted: (id) => (accepted = id) });
    expect(new TextDecoder().decode(reply)).toBe('hello world');
    expect(accepted).toBe('old-responder');
  });

  it('ends a request at the reply marked final, without waiting for the sentinel', async () => {
    raw.subscribe(`${namespace}.final.only`, {
      queue: 'final',
      callback: (_error, msg) => {
        const final = natsHeaders();
        final.set('Trawler-Final', '1');
        msg.respond(new TextEncoder().encode('done'), { headers: final });
        // No sentinel: a requester that waited for one would time out.
      },
    });
    await raw.flush();
    const reply = await requester.request('final.only', new Uint8Array([1]), { timeoutMs: 60_000 });
    expect(new TextDecoder().decode(reply)).toBe('done');
  });

  it('answers a requester of an earlier version, which reads up to the sentinel', async () => {
    const large = new Uint8Array(3 * 1024 * 1024 + 17).map((_, i) => i % 251);
    // A one-byte request asks for the large reply, which comes back in chunks; others are echoed. The
    // handler runs until the requester has a first message (as a long job runs), so the acceptance
    // goes out before the reply.
    let firstMessage: () => void = () => undefined;
    const served = responder.serve('new.responder', 'new', async (payload) => {
      await new Promise<void>((resolve) => (firstMessage = resolve));
      return payload.length === 1 ? large : payload;
    }, 'responder-3');
    await responder.ping(5000);
    for (const [request, expected] of [[new Uint8Array([1, 2, 3, 4, 5]), new Uint8Array([1, 2, 3, 4, 5])], [new Uint8Array([0]), large]]) {
      const messages: Msg[] = [];
      for await (const msg of await raw.requestMany(`${namespace}.new.responder`, request, { strategy: RequestStrategy.SentinelMsg, maxWait: 10_000 })) {
        messages.push(msg);
        firstMessage();
        if (msg.data.length === 0) break;
      }
      expect(messages[0].headers?.get('Trawler-Accepted')).toBe('responder-3');
      expect(messages.at(-1)?.data.length).toBe(0);
      const body = Buffer.concat(messages.slice(1, -1).map((msg) => msg.data));
      expect(body.equals(Buffer.from(expected))).toBe(true);
      expect(Number(messages[1].headers?.get('Trawler-Length'))).toBe(expected.length);
    }
    await served.drain();
  });

  it('keeps each reply with its request when many share the inbox', async () => {
    const served = responder.serve('many.echo', 'many', async (payload) => payload, 'responder-4');
    await responder.ping(5000);
    const replies = await Promise.all(Array.from({ length: 50 }, (_, i) => requester.request('many.echo', new Uint8Array([i]), { timeoutMs: 10_000 })));
    expect(replies.map((reply) => reply[0])).toEqual(Array.from({ length: 50 }, (_, i) => i));
    await served.drain();
  });

  it('fails the requests still waiting when the requester closes its connection', async () => {
    const served = responder.serve('never.echo', 'never', () => new Promise<Uint8Array>(() => undefined), 'responder-5');
    await responder.ping(5000);
    const closing = await NatsBus.connect(NATS_URL, 'test-closing', namespace);
    let failure: unknown = null;
    const accepted = new Promise<string>((resolve) => {
      void closing.request('never.echo', new Uint8Array([1]), { timeoutMs: 600_000, onAccepted: resolve }).catch((error: unknown) => (failure = error));
    });
    await accepted;
    await closing.close();
    await expect.poll(() => failure, { timeout: 10_000 }).toMatchObject({ kind: 'closed' });
    void served.drain();
  });
});
