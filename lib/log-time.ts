/**
 * pino's `stdTimeFunctions.isoTime` (`,"time":"2026-11-24T13:26:10.123Z"`), the same text, with the
 * date and time up to the second made once a second instead of a Date and its ISO string per line
 * (each request logs a line in the gateway and in the worker).
 */
export function createIsoTime(now: () => number = Date.now): () => string {
  let second = Number.NaN;
  let prefix = '';
  return () => {
    const ms = now();
    const within = ((ms % 1000) + 1000) % 1000;
    if (ms - within !== second) {
      second = ms - within;
      // `YYYY-MM-DDTHH:MM:SS.` of the ISO string, which is fixed width for years 0-9999.
      prefix = `,"time":"${new Date(second).toISOString().slice(0, -4)}`;
    }
    return `${prefix}${String(within).padStart(3, '0')}Z"`;
  };
}
