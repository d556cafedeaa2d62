import { isSpace } from '../../whitespace.js';

/** Collapsed text of a run of nodes, to join lengths without reading the text again. */
export interface Span {
  length: number;
  lead: boolean;
  trail: boolean;
  blank: boolean;
}

export const EMPTY_SPAN: Span = { length: 0, lead: false, trail: false, blank: true };


/** Readability's comma variants (Latin, Arabic, small, vertical, ideographic...). */
function isComma(code: number): boolean {
  return code === 0x2c || code === 0x060c || code === 0xfe50 || code === 0xfe10 || code === 0xfe11 || code === 0x2e41 || code === 0x2e34 || code === 0x2e32 || code === 0xff0c;
}

/* A regular expression once, not one object per call. */
const NOT_SPACE = /\S/;

/** Whether a text is all whitespace (as `text.trim() === ''`, without the trimmed copy). */
export function isBlank(text: string): boolean {
  return !NOT_SPACE.test(text);
}

/** The length of `text.trim()`, without the trimmed copy. */
export function trimmedLength(text: string): number {
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end -= 1;
  return end - start;
}

/** A text's collapsed span and its commas. */
interface TextCounts extends Span {
  commas: number;
  asciiCommas: number;
}

/** scan()'s answer, one object for every call: read it before the next scan. */
const scanned: TextCounts = { ...EMPTY_SPAN, commas: 0, asciiCommas: 0 };

/** The collapsed span and the commas of a text, in one scan without copies or new objects. */
export function scan(data: string): Readonly<TextCounts> {
  let length = 0;
  let commas = 0;
  let asciiCommas = 0;
  let inSpace = false;
  let blank = true;
  for (let i = 0; i < data.length; i += 1) {
    const code = data.charCodeAt(i);
    if (isSpace(code)) {
      if (!inSpace) length += 1;
      inSpace = true;
      continue;
    }
    inSpace = false;
    blank = false;
    length += 1;
    if (code === 0x2c) {
      commas += 1;
      asciiCommas += 1;
    } else if (code > 0x2c && isComma(code)) commas += 1;
  }
  scanned.length = length;
  scanned.lead = length > 0 && isSpace(data.charCodeAt(0));
  scanned.trail = length > 0 && isSpace(data.charCodeAt(data.length - 1));
  scanned.blank = blank;
  scanned.commas = commas;
  scanned.asciiCommas = asciiCommas;
  return scanned;
}

/** Extends `span` by `next`, the text that follows it. */
export function extend(span: Span, next: Span): void {
  if (next.length === 0) return;
  if (span.length === 0) {
    span.length = next.length;
    span.lead = next.lead;
    span.trail = next.trail;
    span.blank = next.blank;
    return;
  }
  const shared = span.trail && next.lead ? 1 : 0;
  span.length += next.length - shared;
  span.lead ||= span.blank && next.lead;
  span.trail = next.trail || (next.blank && span.trail);
  span.blank &&= next.blank;
}

export function trimmed(span: Span): number {
  if (span.blank) return 0;
  return span.length - (span.lead ? 1 : 0) - (span.trail ? 1 : 0);
}
