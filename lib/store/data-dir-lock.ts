import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/**
 * One process at a time owns an embedded store: PGlite keeps the database in the process's memory and
 * writes it back to DATA_DIR, so a second process would see a stale copy and overwrite the first's
 * writes. The owner is written in `DATA_DIR/trawler.lock`; the lock of a process that no longer runs
 * (same host, dead pid) is taken over.
 */
const LOCK_FILE = 'trawler.lock';

export interface LockHolder {
  pid: number;
  host: string;
  command: string;
  started_at: string;
}

export class StoreLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder,
  ) {
    super(
      `The embedded store in ${dataDir} is in use by process ${holder.pid} on ${holder.host} ` +
        `("${holder.command}", since ${holder.started_at}); only one process may open it. ` +
        'Stop that process (SIGTERM) and run this command again, or run every program against PostgreSQL ' +
        '(DATABASE_URL) so that several processes can share the store. Nothing was changed.',
    );
    this.name = 'StoreLockedError';
  }
}

export interface DataDirLock {
  release(): void;
}

/** Lock files this process holds: a second open in the same process is refused like any other. */
const heldHere = new Set<string>();

export function lockDataDir(dataDir: string): DataDirLock {
  const path = resolve(dataDir, LOCK_FILE);
  if (heldHere.has(path)) throw new StoreLockedError(dataDir, readHolder(path) ?? unknownHolder());
  const me: LockHolder = {
    pid: process.pid,
    host: hostname(),
    command: ['trawler', ...process.argv.slice(2)].join(' '),
    started_at: new Date().toISOString(),
  };
  const mine = JSON.stringify(me);
  // A few rounds: each failed round means another process took or freed the lock meanwhile.
  for (let round = 0; round < 5; round += 1) {
    if (createExclusive(path, mine)) {
      heldHere.add(path);
      return {
        release: () => {
          if (heldHere.delete(path)) removeIfMine(path, mine);
        },
      };
    }
    const holder = readHolder(path);
    if (holder === null) continue;
    if (isAlive(holder)) throw new StoreLockedError(dataDir, holder);
    takeOverStale(path, holder);
  }
  throw new Error(`could not lock the embedded store in ${dataDir}: its lock file ${path} keeps changing`);
}

function createExclusive(path: string, content: string): boolean {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, content);
  try {
    linkSync(temporary, path); // atomic: fails when the lock file exists
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    unlinkSync(temporary);
  }
}

function readHolder(path: string): LockHolder | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    // Unreadable content (a crash mid-write cannot happen with link(), but a hand edit can): stale.
    return unknownHolder();
  }
}

function unknownHolder(): LockHolder {
  return { pid: -1, host: hostname(), command: 'unknown', started_at: 'unknown' };
}

function isAlive(holder: LockHolder): boolean {
  // A lock written on another host (a shared volume) cannot be checked, so it is honoured.
  if (holder.host !== hostname()) return true;
  // The same pid as ours is a previous life of this process's pid (a container's pid 1 restarting).
  if (holder.pid === process.pid || holder.pid <= 0) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Moves the stale lock aside; if what was moved turns out to be a live process's new lock, puts it back. */
function takeOverStale(path: string, stale: LockHolder): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  const moved = readHolder(aside);
  if (moved && (moved.pid !== stale.pid || moved.started_at !== stale.started_at)) {
    try {
      linkSync(aside, path);
    } catch {
      // Someone else locked meanwhile; the next round reads and honours them.
    }
  }
  unlinkSync(aside);
}

function removeIfMine(path: string, mine: string): void {
  try {
    if (readFileSync(path, 'utf8') === mine) unlinkSync(path);
  } catch {
    // Already gone.
  }
}
