/**
 * `network_capture.url_pattern`, matched in time linear in the URL plus the pattern, whatever both
 * hold: the page chooses the URLs it loads and the caller the pattern, and the matcher runs on the
 * worker's main thread (which in the embedded default also serves the API). A backtracking regular
 * expression (`^.*a.*a.*b$`) took seconds on a URL of 50 `a`.
 *
 * Without a `*`, the pattern is a substring of the URL. With one, `*` matches any run of characters
 * (empty included) and the rest must match the whole URL. The pieces between stars are found
 * left to right, each at its earliest place after the previous one (taking the earliest place never
 * loses a match with `*`-only globs), with Knuth-Morris-Pratt, so no character of the URL is read
 * more than twice per piece boundary and nothing is ever retried.
 */

/** Counts the character comparisons a match makes; tests use it to show the cost is linear. */
export interface MatchCounter {
  steps: number;
}

interface Piece {
  text: string;
  /** KMP failure table: the length of the longest proper border of text[0..i]. */
  border: Int32Array;
}

function pieceOf(text: string): Piece {
  const border = new Int32Array(text.length);
  let k = 0;
  for (let i = 1; i < text.length; i += 1) {
    while (k > 0 && text[i] !== text[k]) k = border[k - 1];
    if (text[i] === text[k]) k += 1;
    border[i] = k;
  }
  return { text, border };
}

/** The index just past the first occurrence of `piece` in url[from, to), or -1. */
function findAfter(piece: Piece, url: string, from: number, to: number, counter: MatchCounter | undefined): number {
  const { text, border } = piece;
  if (text.length === 0) return from;
  let matched = 0;
  for (let i = from; i < to; i += 1) {
    while (matched > 0 && url[i] !== text[matched]) {
      matched = border[matched - 1];
      if (counter) counter.steps += 1;
    }
    if (counter) counter.steps += 1;
    if (url[i] === text[matched]) matched += 1;
    if (matched === text.length) return i + 1;
  }
  return -1;
}

export type UrlMatcher = (url: string, counter?: MatchCounter) => boolean;

/** A matcher for `pattern` (undefined: every URL matches). The pattern is prepared once per scrape. */
export function urlMatcher(pattern: string | undefined): UrlMatcher {
  if (pattern === undefined) return () => true;
  const parts = pattern.split('*');
  if (parts.length === 1) {
    const whole = pieceOf(pattern);
    return (url, counter) => findAfter(whole, url, 0, url.length, counter) !== -1;
  }
  const head = parts[0];
  const tail = parts[parts.length - 1];
  const middle = parts.slice(1, -1).filter((part) => part !== '').map(pieceOf);
  return (url, counter) => {
    if (url.length < head.length + tail.length || !url.startsWith(head) || !url.endsWith(tail)) return false;
    if (counter) counter.steps += head.length + tail.length;
    let at = head.length;
    const end = url.length - tail.length;
    for (const piece of middle) {
      at = findAfter(piece, url, at, end, counter);
      if (at === -1) return false;
    }
    return true;
  };
}
