import { pino, type DestinationStream, type Logger } from 'pino';

export type { Logger };

/** Lines below this level wait at most this long, so a busy service writes stdout a few times a second, not once a line. */
const BATCH_MS = 100;
const ERROR_LEVEL = 50;

/**
 * Stdout, written in batches: a write per log line cost the fetch tier about 3% of its CPU
 * (docs/platform.md, "Performance"). Errors and worse are written at once with what waits before
 * them, and every waiting line is written when the process exits.
 */
class BatchedStdout implements DestinationStream {
  readonly [pino.symbols.needsMetadataGsym] = true;
  /** Set by pino before each write (needsMetadata). */
  lastLevel = 0;
  private readonly out = pino.destination({ dest: 1, sync: true });
  private lines: string[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor() {
    process.once('exit', () => this.flush());
  }

  write(line: string): void {
    this.lines.push(line);
    if (this.lastLevel >= ERROR_LEVEL) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), BATCH_MS).unref();
  }

  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.lines.length === 0) return;
    const text = this.lines.join('');
    this.lines = [];
    this.out.write(text);
  }
}

let stdout: BatchedStdout | null = null;

/** JSON lines on stdout; children carry request, job or worker ids. Bodies and secrets are never logged. */
export function createLogger(name: string, level: string): Logger {
  stdout ??= new BatchedStdout();
  return pino(
    {
      name,
      level,
      base: { service: name },
      timestamp: pino.stdTimeFunctions.isoTime,
      redact: { paths: ['authorization', 'headers.authorization', 'proxy', 'cookies'], censor: '[redacted]' },
    },
    stdout,
  );
}
