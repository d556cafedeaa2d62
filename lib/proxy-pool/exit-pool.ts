import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../store/db.js';
import { addExitSuccesses, assignStickyExit, findStickyExit, loadExitHealth, recordExitHealth, type ExitHealthRow } from '../store/proxy-pools.js';
import type { ExitOutcome } from './outcome.js';
import type { PoolExit } from './pool-file.js';
import {
  candidatesOf,
  domainHealthKey,
  eligibleCandidates,
  healthWeight,
  isOutOfRotation,
  SmoothRotation,
  type ExitCandidate,
  type ExitHealth,
  type ExitIntent,
  type HealthView,
} from './selection.js';

export interface ExitPoolOptions {
  /** First cooldown; each further consecutive trip doubles it. */
  cooldownBaseMs: number;
  cooldownMaxMs: number;
  /** How stale this replica's copy of the shared health may be; 0 reads the store for every selection. */
  refreshMs: number;
  now?: () => number;
}

/** The exit chosen for one dispatch. */
export interface ChosenExit {
  candidate: ExitCandidate;
  /** Proxy URL with credentials (and, for a provider gateway, the country and session in the username). */
  url: string;
  sticky: boolean;
}

export interface ChooseInput {
  intent: ExitIntent;
  /** The target's host: bans cool an exit down for it only. */
  domain: string;
  projectId: string;
  /** A project's sticky key: every replica sends it through one exit while that exit is usable. */
  stickyKey: string | null;
  exclude?: ReadonlySet<string>;
}

/** Snapshot of one candidate for the dashboard, metrics and the operator's status; never credentials. */
export interface ExitStatus {
  key: string;
  tier: string;
  country: string | null;
  region: string | null;
  provider: string | null;
  endpoint: string;
  kind: PoolExit['kind'];
  successes: number;
  failures: number;
  bans: number;
  state: 'healthy' | 'cooling' | 'auth_failed';
  cooldown_until: string | null;
}

function toHealth(row: ExitHealthRow): ExitHealth {
  return {
    successes: row.successes,
    failures: row.failures,
    bans: row.bans,
    consecutive: row.consecutive,
    cooldownUntil: row.cooldown_until,
    authFailedHash: row.auth_failed_hash,
  };
}

/**
 * The deployment's managed pool as one gateway replica sees it: the configured candidates, the health
 * every replica shares through the store (copied here for at most `refreshMs`, and updated at once by
 * this replica's own uses), the sticky assignments (always read from the store) and the rotation.
 */
export class ExitPool implements HealthView {
  private configured: readonly PoolExit[] = [];
  private selectable: ExitCandidate[] = [];
  private byKey = new Map<string, ExitCandidate>();
  private readonly rotation = new SmoothRotation();
  private exitHealth = new Map<string, ExitHealth>();
  private domainHealth = new Map<string, ExitHealth>();
  /** Successes not yet written: one statement per flush instead of one per request. */
  private pendingSuccesses = new Map<string, number>();
  private flushing: Promise<void> | null = null;
  private readonly flushTimer: NodeJS.Timeout;
  private loadedAt = -Infinity;
  private loading: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(
    exits: readonly PoolExit[],
    private readonly db: Queryable,
    private readonly options: ExitPoolOptions,
  ) {
    this.replaceExits(exits);
    this.now = options.now ?? Date.now;
    this.flushTimer = setInterval(() => void this.flush().catch(() => undefined), SUCCESS_FLUSH_MS);
    this.flushTimer.unref();
  }

  /** The configured exits (the pool file's entries). */
  get exits(): readonly PoolExit[] {
    return this.configured;
  }

  /** The selectable exits: static exits, and each country of a provider gateway. */
  get candidates(): readonly ExitCandidate[] {
    return this.selectable;
  }

  /**
   * Serves new selections from these exits (a reloaded pool file). Health stays keyed by exit id, so an
   * exit kept across the change keeps its record and cooldown; a dispatch under way still records
   * its use, unless its exit is gone. Sticky keys on a removed exit move at their next request.
   */
  replaceExits(exits: readonly PoolExit[]): void {
    const candidates = candidatesOf(exits);
    this.configured = exits;
    this.selectable = candidates;
    this.byKey = new Map(candidates.map((c) => [c.key, c]));
    this.rotation.keepOnly(this.byKey);
  }

  /** Writes the successes counted since the last flush (every SUCCESS_FLUSH_MS, and at close). */
  async flush(): Promise<void> {
    await this.flushing;
    if (this.pendingSuccesses.size === 0) return;
    const counts = this.pendingSuccesses;
    this.pendingSuccesses = new Map();
    this.flushing = addExitSuccesses(this.db, counts, this.now()).finally(() => (this.flushing = null));
    await this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flush();
  }

  exit(key: string): ExitHealth | undefined {
    return this.exitHealth.get(key);
  }

  domain(key: string, domain: string): ExitHealth | undefined {
    return this.domainHealth.get(domainHealthKey(key, domain));
  }

  hasTier(tier: string): boolean {
    return this.candidates.some((c) => c.exit.tier === tier);
  }

  /** Reads the shared health when this replica's copy is older than `refreshMs` (one read at a time). */
  async refresh(force = false): Promise<void> {
    if (!force && this.now() - this.loadedAt < this.options.refreshMs) return;
    this.loading ??= (async () => {
      try {
        const rows = await loadExitHealth(this.db, this.now());
        const exits = new Map<string, ExitHealth>();
        const domains = new Map<string, ExitHealth>();
        for (const row of rows) {
          if (row.domain === '') exits.set(row.exit_key, toHealth(row));
          else domains.set(domainHealthKey(row.exit_key, row.domain), toHealth(row));
        }
        this.exitHealth = exits;
        this.domainHealth = domains;
        this.loadedAt = this.now();
      } finally {
        this.loading = null;
      }
    })();
    await this.loading;
  }

  /** Throws 503 ERR::PROXY::EXHAUSTED unless some exit could serve the intent now (a session's, at creation). */
  async assertCanServe(intent: ExitIntent): Promise<void> {
    await this.refresh();
    eligibleCandidates(this.candidates, intent, this, '', this.now());
  }

  /** The exit for one dispatch, null for direct; throws 503 ERR::PROXY::EXHAUSTED (selection.ts). */
  async choose(input: ChooseInput): Promise<ChosenExit | null> {
    await this.refresh();
    const now = this.now();
    const eligible = eligibleCandidates(this.candidates, input.intent, this, input.domain, now, input.exclude);
    if (eligible === null) return null;
    if (input.stickyKey !== null) return this.chooseSticky(input, eligible);
    const candidate = this.rotation.pick(eligible, (c) => healthWeight(c, this.exitHealth.get(c.key)));
    return { candidate, url: candidate.exit.urlFor(candidate.country ?? '', randomBytes(6).toString('hex')), sticky: false };
  }

  private async chooseSticky(input: ChooseInput, eligible: ExitCandidate[]): Promise<ChosenExit> {
    const stickyKey = input.stickyKey ?? '';
    const current = await findStickyExit(this.db, input.projectId, stickyKey);
    let assignment = current;
    if (!current || !eligible.some((c) => c.key === current.exit_key)) {
      // The first of the eligible in a fixed order per key: replicas choosing at once mostly agree, and the store settles it.
      const candidate = eligible[stickyIndex(input.projectId, stickyKey, eligible.length)];
      assignment = await assignStickyExit(this.db, {
        projectId: input.projectId,
        stickyKey,
        exitKey: candidate.key,
        sessionToken: stickyToken(input.projectId, stickyKey, current?.exit_key ?? ''),
        replacing: current?.exit_key ?? null,
      });
    }
    const chosen = (assignment && eligible.find((c) => c.key === assignment.exit_key)) ?? eligible[0];
    const token = assignment?.session_token ?? stickyToken(input.projectId, stickyKey, '');
    return { candidate: chosen, url: chosen.exit.urlFor(chosen.country ?? '', token), sticky: true };
  }

  /**
   * Records what one use said of the exit, in the store (shared) and in this replica's copy. A
   * failure is written before the answer, so the cooldown is shared at once; a success is only
   * counted, and written with the others at the next flush.
   */
  async record(key: string, domain: string, outcome: ExitOutcome, detail: string | null = null): Promise<void> {
    const candidate = this.byKey.get(key);
    if (!candidate || outcome === 'neutral') return;
    if (outcome === 'ok') {
      this.pendingSuccesses.set(key, (this.pendingSuccesses.get(key) ?? 0) + 1);
      const health = this.exitHealth.get(key);
      if (health) this.exitHealth.set(key, { ...health, successes: health.successes + 1, consecutive: 0 });
      return;
    }
    const base = { now: this.now(), baseMs: this.options.cooldownBaseMs, maxMs: this.options.cooldownMaxMs, success: false, lastError: detail };
    const changes =
      outcome === 'ban'
        ? [
            { ...base, exitKey: key, domain: '', failure: false, ban: true, trip: false, authFailedHash: null, lastError: null },
            { ...base, exitKey: key, domain, failure: false, ban: true, trip: true, authFailedHash: null },
          ]
        : [{ ...base, exitKey: key, domain: '', failure: true, ban: false, trip: true, authFailedHash: outcome === 'auth' ? candidate.exit.credentialHash : null }];
    const rows = await Promise.all(changes.map((change) => recordExitHealth(this.db, change)));
    for (const row of rows) {
      if (row.domain === '') this.exitHealth.set(row.exit_key, toHealth(row));
      else this.domainHealth.set(domainHealthKey(row.exit_key, row.domain), toHealth(row));
    }
  }

  /** Every candidate with its health, read from the store first. */
  async status(): Promise<ExitStatus[]> {
    await this.flush();
    await this.refresh(true);
    return this.snapshot();
  }

  /** Every candidate with its health as this replica last read it (no store read: for metrics). */
  snapshot(): ExitStatus[] {
    const now = this.now();
    return this.candidates.map((c) => {
      const h = this.exitHealth.get(c.key);
      const cooling = (h?.cooldownUntil ?? 0) > now;
      return {
        key: c.key,
        tier: c.exit.tier,
        country: c.country,
        region: c.exit.region,
        provider: c.exit.provider,
        endpoint: c.exit.endpoint,
        kind: c.exit.kind,
        successes: h?.successes ?? 0,
        failures: h?.failures ?? 0,
        bans: h?.bans ?? 0,
        state: isOutOfRotation(c, h) ? 'auth_failed' : cooling ? 'cooling' : 'healthy',
        cooldown_until: cooling && h ? new Date(h.cooldownUntil).toISOString() : null,
      };
    });
  }
}

/** How often a replica writes the successes it counted. */
const SUCCESS_FLUSH_MS = 1000;

function digest(...parts: string[]): Buffer {
  return createHash('sha256').update(parts.join('\0')).digest();
}

function stickyIndex(projectId: string, stickyKey: string, n: number): number {
  return digest(projectId, stickyKey).readUInt32BE(0) % n;
}

/** A provider session token per sticky key and previous exit: a reassignment gets a fresh address. */
function stickyToken(projectId: string, stickyKey: string, previous: string): string {
  return digest('session', projectId, stickyKey, previous).toString('hex').slice(0, 16);
}
