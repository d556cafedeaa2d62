import { createHash } from 'node:crypto';
import { watch, readFileSync, type FSWatcher } from 'node:fs';
import path from 'node:path';
import { parsePoolFile, PoolFileError, type PoolExit } from './pool-file.js';

/** What one look at the pool file found. */
export type PoolFileCheck =
  | { result: 'applied'; exits: PoolExit[] }
  /** The same text as the pools in use, or as the last file refused (refused once, not again per look). */
  | { result: 'unchanged' }
  | { result: 'rejected'; error: PoolFileError };

const digestOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * PROXY_POOLS_FILE as the gateway keeps it: the exits of the last text that passed validation. A
 * changed file is parsed again; one that fails validation leaves the exits in use as they are.
 */
export class PoolFileSource {
  private appliedDigest: string;
  private rejectedDigest: string | null = null;

  private constructor(
    readonly path: string,
    text: string,
    /** The exits of the text in use. */
    public exits: PoolExit[],
  ) {
    this.appliedDigest = digestOf(text);
  }

  /** Reads and parses the file at start; throws PoolFileError naming what is wrong (the gateway does not start). */
  static open(file: string): PoolFileSource {
    const text = readPoolFileText(file);
    return new PoolFileSource(file, text, parsePoolFile(text, `PROXY_POOLS_FILE ${file}`));
  }

  /** Reads the file again and keeps its exits when it changed and is valid. */
  check(): PoolFileCheck {
    let text: string;
    try {
      text = readPoolFileText(this.path);
    } catch (error) {
      return this.refuse(error as PoolFileError, null);
    }
    const digest = digestOf(text);
    if (digest === this.appliedDigest) {
      this.rejectedDigest = null;
      return { result: 'unchanged' };
    }
    if (digest === this.rejectedDigest) return { result: 'unchanged' };
    try {
      this.exits = parsePoolFile(text, `PROXY_POOLS_FILE ${this.path}`);
    } catch (error) {
      if (!(error instanceof PoolFileError)) throw error;
      return this.refuse(error, digest);
    }
    this.appliedDigest = digest;
    this.rejectedDigest = null;
    return { result: 'applied', exits: this.exits };
  }

  private refuse(error: PoolFileError, digest: string | null): PoolFileCheck {
    // An unreadable file is reported on every look: it is not a text that could be remembered.
    this.rejectedDigest = digest;
    return { result: 'rejected', error };
  }
}

function readPoolFileText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    const why = error instanceof Error && 'code' in error ? String(error.code) : 'unreadable';
    throw new PoolFileError(`PROXY_POOLS_FILE ${file} cannot be read: ${why}`);
  }
}

export interface PoolFileWatch {
  /** Looks at the file now (SIGHUP, and the watch itself). */
  reload(): PoolFileCheck;
  close(): void;
}

/** Changes of several files written at once (an editor, a Secret volume's symlink swap) are read once. */
const SETTLE_MS = 100;

/**
 * Watches the file's directory, not the file: an editor or `mv` replaces the file (a new inode the old
 * watch would never see), and a Kubernetes Secret volume swaps a `..data` symlink beside it. The
 * periodic look covers file systems without change events (NFS, some container mounts). `onCheck`
 * hears every look but the ones that found nothing new.
 */
export function watchPoolFile(source: PoolFileSource, everyMs: number, onCheck: (check: PoolFileCheck) => void): PoolFileWatch {
  const reload = (): PoolFileCheck => {
    const check = source.check();
    if (check.result !== 'unchanged') onCheck(check);
    return check;
  };
  if (everyMs <= 0) return { reload, close: () => undefined };
  let settle: NodeJS.Timeout | null = null;
  const soon = (): void => {
    if (settle) return;
    settle = setTimeout(() => {
      settle = null;
      reload();
    }, SETTLE_MS);
  };
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(path.resolve(source.path)), { persistent: false }, soon);
    watcher.on('error', () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    // No change events here: the periodic look alone.
  }
  const timer = setInterval(reload, everyMs);
  timer.unref();
  return {
    reload,
    close() {
      clearInterval(timer);
      if (settle) clearTimeout(settle);
      watcher?.close();
    },
  };
}
