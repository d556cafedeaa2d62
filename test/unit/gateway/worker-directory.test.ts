import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Bus } from '../../../lib/bus/bus.js';
import { HEARTBEAT_TYPE } from '../../../lib/protocol/membership.js';
import { WORKER_HEARTBEAT_SUBJECT } from '../../../lib/protocol/index.js';
import { WorkerDirectory } from '../../../gateway/worker-directory.js';

/** A NATS-like bus that only records the directory's subscriptions, so a test hands it heartbeats. */
function recordingBus(): { bus: Bus; deliver(subject: string, message: unknown): void } {
  const handlers = new Map<string, (payload: Uint8Array) => void>();
  const bus = {
    transport: 'nats',
    subscribe(subject: string, handler: (payload: Uint8Array) => void) {
      handlers.set(subject, handler);
      return { drain: async () => undefined };
    },
    publish() {},
  } as unknown as Bus;
  return { bus, deliver: (subject, message) => handlers.get(subject)?.(new TextEncoder().encode(JSON.stringify(message))) };
}

function heartbeat(id: string, inUse: number) {
  return {
    type: HEARTBEAT_TYPE, id, engine: 'chromium', pool: 'default', host: 'h', version: '0.1.0', capacity: 2, in_flight: 0,
    started_at: new Date().toISOString(), sent_at: new Date().toISOString(), heartbeat_interval_ms: 300, draining: false,
    browser_sessions: { capacity: 1, in_use: inUse },
  };
}

describe('WorkerDirectory: where a remote-browser lease goes when the picked worker is full', () => {
  // The directory stamps a heartbeat with the clock when it arrives: the clock is set, never waited for.
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: 1_000_000 }));
  afterEach(() => vi.useRealTimers());

  it('offers a worker whose heartbeats run late last, after the live ones, until it is forgotten', () => {
    const { bus, deliver } = recordingBus();
    const directory = new WorkerDirectory(bus);
    directory.start();
    deliver(WORKER_HEARTBEAT_SUBJECT, heartbeat('late', 0));
    vi.setSystemTime(1_002_000);
    // 2 s without a heartbeat at a 300 ms interval: dropped from the live view (3 periods)...
    expect(directory.list().map((worker) => worker.id)).toEqual([]);
    expect(directory.browserEngines().has('chromium')).toBe(false);
    deliver(WORKER_HEARTBEAT_SUBJECT, heartbeat('live-full', 1));
    // ...yet still asked for a lease, after every live member (here one that is full).
    expect(directory.browserWorkersByRoom('chromium', new Set())).toEqual(['live-full', 'late']);
    expect(directory.browserWorkersByRoom('chromium', new Set(['live-full']))).toEqual(['late']);
    // 20 periods (6 s) of silence: forgotten.
    vi.setSystemTime(1_006_500);
    expect(directory.browserWorkersByRoom('chromium', new Set(['live-full']))).toEqual([]);
  });

  it('takes a silent worker back as live at its next heartbeat', () => {
    const { bus, deliver } = recordingBus();
    const directory = new WorkerDirectory(bus);
    directory.start();
    deliver(WORKER_HEARTBEAT_SUBJECT, heartbeat('w', 0));
    vi.setSystemTime(1_002_000);
    expect(directory.list()).toEqual([]);
    deliver(WORKER_HEARTBEAT_SUBJECT, heartbeat('w', 0));
    expect(directory.list().map((worker) => worker.id)).toEqual(['w']);
    expect(directory.browserWorkersByRoom('chromium', new Set())).toEqual(['w']);
  });
});
