/** Work a gateway must finish (or give up on) before it closes its store and bus on shutdown. */
export class WorkTracker {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const forget = () => this.running.delete(work);
    work.then(forget, forget);
    return work;
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when all tracked work has settled, or after `timeoutMs`, whichever is first. */
  async drain(timeoutMs: number): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const all = Promise.allSettled([...this.running]).then(() => true);
    const done = await Promise.race([all, new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)))]);
    clearTimeout(timer);
    return done;
  }
}
