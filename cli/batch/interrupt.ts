import type { ProgressView } from './progress.js';

export type WatchAction = 'tick' | 'cancel' | 'detach';

export interface InterruptOptions {
  jobId: string;
  /** stdin and stderr are terminals and --json is off: Ctrl-C asks what to do. */
  interactive: boolean;
  /** --cancel-on-interrupt: the first Ctrl-C or SIGTERM cancels the job without asking. */
  cancelOnInterrupt: boolean;
  progress: ProgressView;
}

/**
 * Ctrl-C while a batch job is watched (README "Client CLI"):
 * - terminal: a one-key prompt (no Enter), c = cancel the job and follow it to `cancelled`, d = leave it
 *   running and exit, any other key = keep watching; Ctrl-C at the prompt cancels.
 * - otherwise: the first Ctrl-C only says what the next will do; the second cancels.
 * - SIGTERM leaves the job running and exits; with --cancel-on-interrupt it cancels, as Ctrl-C does.
 * - once a cancel was sent, another Ctrl-C stops watching at once (the job stays `cancelling`).
 * The watch loop asks `next()` between polls, so requests and prompts never interleave.
 */
export class InterruptControl {
  private pending: 'prompt' | 'cancel' | 'detach' | null = null;
  private wake: (() => void) | null = null;
  private interrupts = 0;
  cancelSent = false;

  private readonly onInt = () => this.signal('SIGINT');
  private readonly onTerm = () => this.signal('SIGTERM');

  constructor(private readonly options: InterruptOptions) {}

  install(): void {
    process.on('SIGINT', this.onInt);
    process.on('SIGTERM', this.onTerm);
  }

  uninstall(): void {
    process.off('SIGINT', this.onInt);
    process.off('SIGTERM', this.onTerm);
  }

  /** Waits up to `ms` (less when a signal arrives) and says what the loop should do next. */
  async next(ms: number): Promise<WatchAction> {
    if (this.pending === null) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => done(), ms);
        const done = () => {
          clearTimeout(timer);
          this.wake = null;
          resolve();
        };
        this.wake = done;
      });
    }
    const pending = this.pending;
    this.pending = null;
    if (pending === 'prompt') return this.ask();
    return pending ?? 'tick';
  }

  private signal(kind: 'SIGINT' | 'SIGTERM'): void {
    const { progress, jobId, cancelOnInterrupt, interactive } = this.options;
    this.interrupts += 1;
    if (this.cancelSent) {
      this.pending = 'detach';
    } else if (kind === 'SIGTERM') {
      this.pending = cancelOnInterrupt ? 'cancel' : 'detach';
    } else if (cancelOnInterrupt) {
      this.pending = 'cancel';
    } else if (interactive) {
      this.pending = 'prompt';
    } else if (this.interrupts === 1) {
      progress.note(`trawler: interrupted; batch job ${jobId} keeps running. Ctrl-C again cancels it (or SIGTERM to leave it running and exit).`);
    } else {
      this.pending = 'cancel';
    }
    this.wake?.();
  }

  /**
   * One key, no Enter (the terminal is put in raw mode for the question): c or Ctrl-C cancels, d
   * detaches, any other key keeps watching. The job is cancelled as soon as the key is pressed.
   */
  private async ask(): Promise<WatchAction> {
    const { progress, jobId } = this.options;
    const input = process.stdin;
    progress.pause();
    process.stderr.write(`\nBatch job ${jobId}: press c to cancel it, d to detach (it keeps running), any other key to keep watching: `);
    const wasRaw = input.isRaw === true;
    input.setRawMode?.(true);
    input.resume();
    try {
      const key = await new Promise<string>((resolve) => input.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8'))));
      const choice = key.toLowerCase();
      const action: WatchAction = key === '\u0003' || choice.startsWith('c') ? 'cancel' : choice.startsWith('d') ? 'detach' : 'tick';
      process.stderr.write(`${action === 'cancel' ? 'cancelling' : action === 'detach' ? 'detaching' : 'watching'}\n`);
      return action;
    } finally {
      input.setRawMode?.(wasRaw);
      input.pause();
    }
  }
}
