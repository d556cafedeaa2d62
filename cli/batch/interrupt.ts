import { createInterface } from 'node:readline';
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
 * - terminal: a prompt, c = cancel the job and follow it to `cancelled`, d = leave it running and exit,
 *   Enter = keep watching; Ctrl-C at the prompt cancels.
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

  private async ask(): Promise<WatchAction> {
    const { progress, jobId } = this.options;
    const readline = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    progress.pause();
    try {
      return await new Promise<WatchAction>((resolve) => {
        readline.once('SIGINT', () => resolve('cancel'));
        readline.question(`Batch job ${jobId}: [c]ancel it, [d]etach (it keeps running), or Enter to keep watching? `, (answer) => {
          const choice = answer.trim().toLowerCase();
          resolve(choice.startsWith('c') ? 'cancel' : choice.startsWith('d') ? 'detach' : 'tick');
        });
      });
    } finally {
      readline.close();
    }
  }
}
