import { z } from 'zod';

/**
 * The instants a caller may name in a date-time parameter or cursor: from the Unix epoch (nothing
 * the service records is older) to the end of year 9998, so that a period derived from the latest
 * one (an allowance month) still has a four-digit year, as RFC 3339 and the store need.
 * docs/parameters.md "Dates".
 */
export const EARLIEST_INSTANT = new Date('1970-01-01T00:00:00.000Z');
export const END_OF_INSTANTS = new Date('9999-01-01T00:00:00.000Z');

export const DATE_RANGE_MESSAGE = `must lie between ${EARLIEST_INSTANT.toISOString()} and 9998-12-31T23:59:59.999Z`;

export function isInstantInRange(date: Date): boolean {
  const time = date.getTime();
  return !Number.isNaN(time) && time >= EARLIEST_INSTANT.getTime() && time < END_OF_INSTANTS.getTime();
}

/** An RFC 3339 date-time with offset, as a Date inside the accepted range. */
export function dateTimeParameter() {
  return z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .refine(isInstantInRange, { message: DATE_RANGE_MESSAGE });
}

/**
 * Midnight UTC of a calendar day, for any year: Date.UTC reads years 0-99 as 1900-1999, setUTCFullYear
 * does not. Month and day overflow the way Date.UTC's do (month 12 is next January, day 0 the last of
 * the month before).
 */
export function utcDate(year: number, monthIndex: number, day: number): Date {
  const date = new Date(0);
  date.setUTCFullYear(year, monthIndex, day);
  return date;
}
