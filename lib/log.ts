import { pino, type Logger } from 'pino';

export type { Logger };

/** JSON lines on stdout; children carry request, job or worker ids. Bodies and secrets are never logged. */
export function createLogger(name: string, level: string): Logger {
  return pino({
    name,
    level,
    base: { service: name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: ['authorization', 'headers.authorization', 'proxy', 'cookies'], censor: '[redacted]' },
  });
}
