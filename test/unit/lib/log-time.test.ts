import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createIsoTime } from '../../../lib/log-time.js';

describe('createIsoTime', () => {
  it("writes what pino's isoTime writes, within a second, across seconds and back in time", () => {
    const instants = [
      0, 999, 1000, 1001, 59_999, 60_000, Date.UTC(2026, 10, 24, 13, 26, 10, 5), Date.UTC(2026, 10, 24, 13, 26, 10, 50),
      Date.UTC(2026, 10, 24, 13, 26, 10, 999), Date.UTC(2026, 10, 24, 13, 26, 11, 0), Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1), Date.UTC(2026, 10, 24, 13, 26, 10, 123), -1, -1000, -1001, Date.UTC(9999, 11, 31, 23, 59, 59, 999),
    ];
    let current = 0;
    const isoTime = createIsoTime(() => current);
    const realNow = Date.now;
    try {
      for (const instant of instants) {
        current = instant;
        Date.now = () => instant;
        expect(isoTime()).toBe(pino.stdTimeFunctions.isoTime());
      }
    } finally {
      Date.now = realNow;
    }
  });
});
