/* Lines that are only a date or a time. */

/** Lines longer than this are prose even when they carry a date. */
const MAX_DATE_LINE = 80;

const MONTHS = 'jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t|tember)?|oct(ober)?|nov(ember)?|dec(ember)?';
const DAYS = 'mon(day)?|tue(s|sday)?|wed(nesday)?|thu(rs|rsday)?|fri(day)?|sat(urday)?|sun(day)?';
const DATE_WORDS = new RegExp(
  `\\b(${MONTHS}|${DAYS}|[ap]\\.?m\\.?|gmt|utc|[ecmp][sd]t|et|bst|cet|ist|posted|published|updated?|last|modified|hrs|first|on|at|date|time|today|yesterday)\\b|\\d[\\d:/.,-]*(st|nd|rd|th|[ap]\\.?m\\.?)?`,
  'gi',
);

const DATE_EVIDENCE = new RegExp(`\\b(${MONTHS}|${DAYS})\\b|\\d{1,2}:\\d{2}|\\b\\d{1,4}[-/.]\\d{1,2}[-/.]\\d{1,4}\\b`, 'i');

/** A short line that is only a date or time ("Posted: Mon, 14 Jan 2008 11:54 GMT"): page furniture, as trafilatura treats it. */
export function isDateLine(text: string): boolean {
  if (text.length > MAX_DATE_LINE || !DATE_EVIDENCE.test(text)) return false;
  return (text.replace(DATE_WORDS, ' ').match(/\p{L}{2,}/gu) ?? []).length === 0;
}
