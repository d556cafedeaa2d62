/**
 * Include and exclude path patterns: `*` matches any run of characters, everything else is literal,
 * and a pattern matches a path that starts with it (`/blog` matches `/blog/a`). Matched with the
 * single-backtrack wildcard algorithm: time at most path length times pattern length, never the
 * exponential backtracking a caller's regular expression could cause.
 */
export function matchesPathPattern(path: string, pattern: string): boolean {
  return wildcardMatch(path, pattern.endsWith('*') ? pattern : `${pattern}*`);
}

function wildcardMatch(text: string, pattern: string): boolean {
  let t = 0;
  let p = 0;
  let star = -1;
  let resume = 0;
  while (t < text.length) {
    if (p < pattern.length && pattern[p] !== '*' && pattern[p] === text[t]) {
      t += 1;
      p += 1;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p;
      resume = t;
      p += 1;
    } else if (star !== -1) {
      p = star + 1;
      resume += 1;
      t = resume;
    } else {
      return false;
    }
  }
  while (p < pattern.length && pattern[p] === '*') p += 1;
  return p === pattern.length;
}

/** A path passes when it matches an include pattern (or there are none) and no exclude pattern. */
export function pathAllowed(path: string, include: readonly string[], exclude: readonly string[]): 'pattern' | null {
  if (include.length > 0 && !include.some((pattern) => matchesPathPattern(path, pattern))) return 'pattern';
  if (exclude.some((pattern) => matchesPathPattern(path, pattern))) return 'pattern';
  return null;
}
