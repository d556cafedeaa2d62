/** Items per second over a sliding window, and the time left at that pace. */
export class RateMeter {
  private samples: Array<{ at: number; done: number }> = [];

  constructor(private readonly windowMs = 30_000) {}

  add(at: number, done: number): void {
    this.samples.push({ at, done });
    while (this.samples.length > 2 && at - this.samples[1].at >= this.windowMs) this.samples.shift();
  }

  /** Items per second; 0 until two samples at different times exist. */
  rate(): number {
    const first = this.samples[0];
    const last = this.samples.at(-1);
    if (!first || !last || last.at <= first.at) return 0;
    return Math.max(0, (last.done - first.done) / ((last.at - first.at) / 1000));
  }

  /** Seconds left for `remaining` items, or null while no pace is known. */
  etaSeconds(remaining: number): number | null {
    if (remaining <= 0) return 0;
    const rate = this.rate();
    return rate > 0 ? Math.ceil(remaining / rate) : null;
  }
}

export function formatDuration(seconds: number | null): string {
  if (seconds === null) return '?';
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
  return `${Math.floor(seconds / 3600)}h${String(Math.floor((seconds % 3600) / 60)).padStart(2, '0')}m`;
}
