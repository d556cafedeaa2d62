import cliProgress from 'cli-progress';
import { formatDuration, RateMeter } from './rate.js';
import type { BatchJob } from './submit.js';

/** How a watched job's progress is shown on stderr. */
export interface ProgressView {
  update(job: BatchJob): void;
  /** A message between updates (the bar is cleared around it on a terminal). */
  note(message: string): void;
  /** Takes the bar off the screen (for a prompt); the next update draws it again. */
  pause(): void;
  stop(): void;
}

interface Figures {
  done: number;
  total: number;
  percent: number;
  rate: string;
  eta: string;
  failed: number;
  credits: string;
  status: string;
  /** A crawl's pages discovered so far (queued plus skipped); absent for a plain batch job. */
  discovered?: number;
}

function figuresOf(job: BatchJob, meter: RateMeter, now: number): Figures {
  const p = job.progress;
  meter.add(now, p.completed);
  return {
    done: p.completed,
    total: p.total,
    percent: p.percent_complete,
    rate: meter.rate().toFixed(1),
    eta: formatDuration(meter.etaSeconds(p.remaining)),
    failed: p.failed,
    credits: (p.credits_charged_micro / 1_000_000).toFixed(p.credits_charged_micro % 1_000_000 === 0 ? 0 : 2),
    status: job.status,
    discovered: job.crawl?.discovered,
  };
}

/** The plain line printed when stderr is not a terminal. */
export function progressLine(f: Figures): string {
  const discovered = f.discovered === undefined ? '' : ` discovered ${f.discovered}`;
  return `progress ${f.done}/${f.total} (${f.percent}%)${discovered} rate ${f.rate}/s eta ${f.eta} failed ${f.failed} credits ${f.credits} status ${f.status}`;
}

/** A live bar (cli-progress) redrawn in place on a terminal. */
export function terminalProgress(stream: NodeJS.WriteStream, now: () => number = Date.now): ProgressView {
  const meter = new RateMeter();
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{bar} {value}/{total} {percentage}%{discovered} | {rate}/s | ETA {eta_text} | failed {failed} | credits {credits} | {status}',
      hideCursor: true,
      etaBuffer: 50,
      fps: 5,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(job) {
      const f = figuresOf(job, meter, now());
      const tokens = { rate: f.rate, eta_text: f.eta, failed: f.failed, credits: f.credits, status: f.status, discovered: f.discovered === undefined ? '' : ` | discovered ${f.discovered}` };
      if (!started) {
        bar.start(f.total, f.done, tokens);
        started = true;
      } else {
        bar.setTotal(f.total);
        bar.update(f.done, tokens);
      }
    },
    note(message) {
      if (started) stream.write('\r\x1b[2K');
      stream.write(`${message}\n`);
      if (started) bar.render();
    },
    pause() {
      if (started) bar.stop();
      started = false;
    },
    stop() {
      if (started) bar.stop();
    },
  };
}

/** Plain lines for logs and pipes: the first update, then at most one per `everyMs`, and the last. */
export function lineProgress(stream: NodeJS.WritableStream, everyMs: number, now: () => number = Date.now): ProgressView {
  const meter = new RateMeter();
  let lastAt = -Infinity;
  let last: Figures | null = null;
  let lastPrinted: Figures | null = null;
  return {
    update(job) {
      const at = now();
      last = figuresOf(job, meter, at);
      if (at - lastAt >= everyMs) {
        stream.write(`${progressLine(last)}\n`);
        lastAt = at;
        lastPrinted = last;
      }
    },
    note(message) {
      stream.write(`${message}\n`);
    },
    pause() {},
    stop() {
      if (last && last !== lastPrinted) stream.write(`${progressLine(last)}\n`);
    },
  };
}

export const silentProgress: ProgressView = { update() {}, note() {}, pause() {}, stop() {} };
