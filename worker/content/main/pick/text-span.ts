/** Collapsed text of a run of nodes, to join lengths without reading the text again. */
export interface Span {
  length: number;
  lead: boolean;
  trail: boolean;
  blank: boolean;
}

export const EMPTY_SPAN: Span = { length: 0, lead: false, trail: false, blank: true };

/** Whitespace as JavaScript's \\s: ASCII spaces, the no-break space and the Unicode spaces. */
function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return code === 160 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Readability's comma variants (Latin, Arabic, small, vertical, ideographic...). */
function isComma(code: number): boolean {
  return code === 0x2c || code === 0x060c || code === 0xfe50 || code === 0xfe10 || code === 0xfe11 || code === 0x2e41 || code === 0x2e34 || code === 0x2e32 || code === 0xff0c;
}

/**
 * Whitespace runs as one space (as `replace(/\s+/g, ' ')`), trimmed. A lone space, most of the
 * whitespace in prose, is no match, so the replacement has few parts to copy: /\s+/ costs ~15 bytes
 * per character of prose in match bookkeeping, this ~1.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s{2,}|[^\S ]/g, ' ').trim();
}

interface TextCounts {
  span: Span;
  commas: number;
  asciiCommas: number;
}

/** The collapsed span and the commas of a text, in one scan without copies. */
export function scan(data: string): TextCounts {
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
  if (length === 0) return { span: EMPTY_SPAN, commas, asciiCommas };
  const span = { length, lead: isSpace(data.charCodeAt(0)), trail: isSpace(data.charCodeAt(data.length - 1)), blank };
  return { span, commas, asciiCommas };
}

export function join(a: Span, b: Span): Span {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  const shared = a.trail && b.lead ? 1 : 0;
  return { length: a.length + b.length - shared, lead: a.lead || (a.blank && b.lead), trail: b.trail || (b.blank && a.trail), blank: a.blank && b.blank };
}

export function trimmed(span: Span): number {
  if (span.blank) return 0;
  return span.length - (span.lead ? 1 : 0) - (span.trail ? 1 : 0);
}
