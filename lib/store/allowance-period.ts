import { utcDate } from '../validation/dates.js';

/**
 * The allowance month (docs/api-reference.md "Limits"): starts on the organization's creation day at 00:00 UTC; in a
 * shorter month it starts on that month's last day.
 */
export function allowancePeriod(createdAt: Date, now: Date): { start: Date; end: Date } {
  const anchorDay = createdAt.getUTCDate();
  let start = periodStartIn(now.getUTCFullYear(), now.getUTCMonth(), anchorDay);
  if (start > now) start = periodStartIn(now.getUTCFullYear(), now.getUTCMonth() - 1, anchorDay);
  const end = periodStartIn(start.getUTCFullYear(), start.getUTCMonth() + 1, anchorDay);
  return { start, end };
}

function periodStartIn(year: number, month: number, anchorDay: number): Date {
  const lastDay = utcDate(year, month + 1, 0).getUTCDate();
  return utcDate(year, month, Math.min(anchorDay, lastDay));
}

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;
const startsToday = new Map<number, string>();
let startsDay = -1;

/**
 * `isoDate(allowancePeriod(createdAt, now).start)`, which depends only on the UTC day of `now` and
 * the creation's day of the month: computed once per anchor day and UTC day, not per scrape.
 */
export function periodStartDate(createdAt: Date, nowMs: number): string {
  const day = Math.floor(nowMs / DAY_MS);
  if (day !== startsDay) {
    startsToday.clear();
    startsDay = day;
  }
  const anchorDay = createdAt.getUTCDate();
  let start = startsToday.get(anchorDay);
  if (start === undefined) {
    start = isoDate(allowancePeriod(createdAt, new Date(nowMs)).start);
    startsToday.set(anchorDay, start);
  }
  return start;
}
