/** Whitespace as JavaScript's `\s` sees it, read without regular expressions or copies where a page's text is long. */

/** Whether a character code is `\s`: ASCII spaces, the no-break space, the Unicode spaces and the byte-order mark. */
export function isSpace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return code === 160 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff;
}

/** Made once: a regular expression literal in a function is a new object per call. */
const SPACE_TO_COLLAPSE = /\s{2,}|[^\S ]/g;

/**
 * Whitespace runs as one space (as `replace(/\s+/g, ' ')`), trimmed. A lone space, most of the
 * whitespace in prose, is no match, so the replacement has few parts to copy: /\s+/ costs ~15 bytes
 * per character of prose in match bookkeeping, this ~1.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(SPACE_TO_COLLAPSE, ' ').trim();
}
