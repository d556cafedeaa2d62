import { pino, type Logger } from 'pino';
import { createIsoTime } from './log-time.js';

export type { Logger };

const ERROR_LEVEL = 50;

/**
 * Stdout through sonic-boom's buffer: a write per log line cost the fetch tier about 3% of its CPU
 * (docs/platform.md, "Performance"). Lines are written once 4 KiB wait or 100 ms have passed, at
 * once for an error or worse, and whatever waits when the process exits.
 */
function bufferedStdout(): pino.DestinationStream & { flushSync(): void } {
  const out = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 });
  process.once('exit', () => out.flushSync());
  return out;
}

let stdout: ReturnType<typeof bufferedStdout> | null = null;

/** JSON lines on stdout; children carry request, job or worker ids. Bodies and secrets are never logged. */
export function createLogger(name: string, level: string): Logger {
  const out = (stdout ??= bufferedStdout());
  return pino(
    {
      name,
      level,
      base: { service: name },
      timestamp: createIsoTime(),
      redact: { paths: ['authorization', 'headers.authorization', 'proxy', 'cookies'], censor: '[redacted]' },
      hooks: {
        logMethod(args, method, levelValue) {
          method.apply(this, args);
          if (levelValue >= ERROR_LEVEL) out.flushSync();
        },
      },
    },
    out,
  );
}
