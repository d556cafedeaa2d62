import { decodeJson, type Bus, type BusSubscription } from '../lib/bus/bus.js';
import { DEFAULT_HEARTBEAT_INTERVAL_MS } from '../lib/config.js';
import {
  ENGINE_NAMES,
  WORKER_HEARTBEAT_SUBJECT,
  WORKER_LEAVE_SUBJECT,
  WORKER_PROBE_SUBJECT,
  WorkerHeartbeatSchema,
  WorkerLeaveSchema,
  type EngineName,
  type WorkerHeartbeat,
} from '../lib/protocol/index.js';

/** Missed heartbeat periods after which a silent worker is dropped. */
const MISSED_PERIODS = 3;
/**
 * Missed periods after which a dropped worker is forgotten. Until then a remote-browser lease every
 * live member refused is still offered to it, last: under load a worker's heartbeats run late while it
 * is there and has room, and a worker that is gone answers "no responders" at once.
 */
const FORGET_PERIODS = 20;

interface Member {
  heartbeat: WorkerHeartbeat;
  lastSeen: number;
}

export interface WorkerView {
  id: string;
  engine: EngineName;
  pool: string;
  host: string;
  version: string;
  status: 'ready' | 'draining';
  capacity: number;
  in_flight: number;
  started_at: string;
  last_seen_at: string;
  /** Remote-browser connections in use of the worker's relay capacity (GET /v1/browser); absent when it has no relay. */
  browser_sessions?: { capacity: number; in_use: number };
}

/** Live pool membership as this gateway sees it on the bus (GET /v1/workers, engine availability). */
export class WorkerDirectory {
  private readonly members = new Map<string, Member>();
  /** Workers dropped for silence, not yet forgotten (browserWorkersByRoom's last resort). */
  private readonly silent = new Map<string, Member>();
  private subscriptions: BusSubscription[] = [];

  constructor(private readonly bus: Bus) {}

  start(): void {
    this.subscriptions = [
      this.bus.subscribe(WORKER_HEARTBEAT_SUBJECT, (payload) => this.onHeartbeat(payload)),
      this.bus.subscribe(WORKER_LEAVE_SUBJECT, (payload) => this.onLeave(payload)),
    ];
    this.bus.publish(WORKER_PROBE_SUBJECT, new Uint8Array(0));
  }

  async stop(): Promise<void> {
    await Promise.all(this.subscriptions.map((s) => s.drain()));
  }

  list(now = Date.now()): WorkerView[] {
    this.expire(now);
    return [...this.members.values()]
      .map(({ heartbeat: h, lastSeen }) => ({
        id: h.id,
        engine: h.engine,
        pool: h.pool,
        host: h.host,
        version: h.version,
        status: h.draining ? ('draining' as const) : ('ready' as const),
        capacity: h.capacity,
        in_flight: h.in_flight,
        started_at: h.started_at,
        last_seen_at: new Date(lastSeen).toISOString(),
        ...(h.browser_sessions ? { browser_sessions: h.browser_sessions } : {}),
      }))
      .sort((a, b) => a.engine.localeCompare(b.engine) || a.id.localeCompare(b.id));
  }

  isLive(workerId: string, now = Date.now()): boolean {
    this.expire(now);
    return this.members.has(workerId);
  }

  /** How long a silent worker stays a member: the longest of the members' expiries. */
  expiryMs(): number {
    let longest = DEFAULT_HEARTBEAT_INTERVAL_MS;
    for (const { heartbeat } of this.members.values()) longest = Math.max(longest, heartbeat.heartbeat_interval_ms);
    return longest * MISSED_PERIODS;
  }

  /** Engines with at least one live worker still taking work. */
  deployedEngines(now = Date.now()): Set<EngineName> {
    // Asked on every scrape: read from the members, not from list()'s views with their timestamps.
    this.expire(now);
    const engines: EngineName[] = [];
    for (const { heartbeat } of this.members.values()) if (!heartbeat.draining) engines.push(heartbeat.engine);
    return new Set(engines.sort((a, b) => a.localeCompare(b)));
  }

  /** Engines with a live worker taking work that relays remote browsers (GET /v1/browser). */
  browserEngines(now = Date.now()): Set<EngineName> {
    this.expire(now);
    const engines = new Set<EngineName>();
    for (const { heartbeat } of this.members.values()) if (!heartbeat.draining && heartbeat.browser_sessions) engines.add(heartbeat.engine);
    return engines;
  }

  /**
   * Live workers relaying remote browsers of `engine`, not draining and not in `exclude`, the most free
   * relay slots first by their last heartbeat (a heartbeat can be a period old: a full one is still listed, last);
   * then those dropped for silence and not yet forgotten, the most recently heard first.
   */
  browserWorkersByRoom(engine: EngineName, exclude: ReadonlySet<string>, now = Date.now()): string[] {
    this.expire(now);
    const candidate = ({ heartbeat }: Member) => heartbeat.engine === engine && !heartbeat.draining && heartbeat.browser_sessions !== undefined && !exclude.has(heartbeat.id);
    const live = [...this.members.values()]
      .filter(candidate)
      .map(({ heartbeat }) => ({ id: heartbeat.id, free: (heartbeat.browser_sessions?.capacity ?? 0) - (heartbeat.browser_sessions?.in_use ?? 0) }))
      .sort((a, b) => b.free - a.free || a.id.localeCompare(b.id));
    const late = [...this.silent.values()].filter(candidate).sort((a, b) => b.lastSeen - a.lastSeen);
    return [...live.map((worker) => worker.id), ...late.map((member) => member.heartbeat.id)];
  }

  summary(now = Date.now()): Record<EngineName, { workers: number; capacity: number; in_flight: number }> {
    const totals = Object.fromEntries(ENGINE_NAMES.map((e) => [e, { workers: 0, capacity: 0, in_flight: 0 }])) as Record<
      EngineName,
      { workers: number; capacity: number; in_flight: number }
    >;
    for (const worker of this.list(now)) {
      if (worker.status !== 'ready') continue;
      totals[worker.engine].workers += 1;
      totals[worker.engine].capacity += worker.capacity;
      totals[worker.engine].in_flight += worker.in_flight;
    }
    return totals;
  }

  private onHeartbeat(payload: Uint8Array): void {
    const parsed = WorkerHeartbeatSchema.safeParse(safeDecode(payload));
    if (!parsed.success) return;
    this.silent.delete(parsed.data.id);
    this.members.set(parsed.data.id, { heartbeat: parsed.data, lastSeen: Date.now() });
  }

  private onLeave(payload: Uint8Array): void {
    const parsed = WorkerLeaveSchema.safeParse(safeDecode(payload));
    if (!parsed.success) return;
    this.members.delete(parsed.data.id);
    this.silent.delete(parsed.data.id);
  }

  private expire(now: number): void {
    // On the in-process bus a worker shares this process: it cannot die without its leave message,
    // and a silence only means the process itself was busy (heartbeats wait in the same event loop).
    if (this.bus.transport === 'memory') return;
    for (const [id, member] of this.members) {
      if (now - member.lastSeen <= member.heartbeat.heartbeat_interval_ms * MISSED_PERIODS) continue;
      this.members.delete(id);
      this.silent.set(id, member);
    }
    for (const [id, member] of this.silent) {
      if (now - member.lastSeen > member.heartbeat.heartbeat_interval_ms * FORGET_PERIODS) this.silent.delete(id);
    }
  }
}

function safeDecode(payload: Uint8Array): unknown {
  try {
    return decodeJson(payload);
  } catch {
    return null;
  }
}
