export interface PeriodicTask {
  /** Runs a pass now, or joins the one under way. */
  tick(): Promise<void>;
  /** No new passes; resolves when the one under way has finished. */
  stop(): Promise<void>;
  readonly stopped: boolean;
}

export interface PeriodicOptions {
  intervalMs: number;
  pass: () => Promise<void>;
  /** A failed pass is reported here (not after stop) and the next pass tries again. */
  onError: (error: unknown) => void;
  /** False: no timer, passes only run on tick() (tests). Default true. */
  autoStart?: boolean;
  /** Run a first pass at once instead of after one interval. Default false. */
  runAtStart?: boolean;
}

/** A background job of the gateway: one pass every interval, never two passes at once. */
export function startPeriodic(options: PeriodicOptions): PeriodicTask {
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    running ??= options
      .pass()
      .catch((error: unknown) => {
        if (!stopped) options.onError(error);
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = options.autoStart === false ? null : setInterval(() => void tick(), options.intervalMs);
  timer?.unref();
  if (timer && options.runAtStart) void tick();
  return {
    tick,
    get stopped() {
      return stopped;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
