import { describe, expect, it } from 'vitest';
import { allowancePeriod, isoDate, periodStartDate } from '../../../../lib/store/allowance-period.js';

const DAY_MS = 86_400_000;

describe('periodStartDate', () => {
  it('is the allowance period start for every creation day and every instant, across month ends and a leap day', () => {
    const from = Date.UTC(2028, 0, 25);
    for (const anchorDay of [1, 15, 28, 29, 30, 31]) {
      const createdAt = new Date(Date.UTC(2025, 0, anchorDay, 17, 30));
      for (let at = from; at < from + 70 * DAY_MS; at += DAY_MS / 3) {
        expect(periodStartDate(createdAt, at)).toBe(isoDate(allowancePeriod(createdAt, new Date(at)).start));
      }
    }
  });

  it('moves to the next period at 00:00 UTC of the anchor day', () => {
    const createdAt = new Date(Date.UTC(2024, 5, 10, 23, 59));
    expect(periodStartDate(createdAt, Date.UTC(2026, 2, 9, 23, 59, 59, 999))).toBe('2026-02-10');
    expect(periodStartDate(createdAt, Date.UTC(2026, 2, 10))).toBe('2026-03-10');
  });
});
