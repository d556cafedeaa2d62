/** Bounds on what one page may cost the content pipeline (documented in docs/content.md). */
export const CONTENT_LIMITS = {
  /** HTML beyond this many characters is cut off before parsing; a warning says so. */
  maxHtmlChars: 3 * 1024 * 1024,
  /** Elements nested deeper than this are flattened to their text. */
  maxDepth: 256,
  /** include_tags plus exclude_tags selectors. */
  maxTagSelectors: 50,
  /** Values a single list rule of `extract` may return. */
  maxListValues: 1000,
  /** Characters of one embedded script block autoparse will try to read as JSON. */
  maxEmbeddedJsonChars: 2 * 1024 * 1024,
} as const;

/** Defaults of ContentPool, overridable by its constructor. */
export const POOL_DEFAULTS = {
  timeoutMs: 15_000,
  maxHeapMb: 512,
  /**
   * Pages answered as fetched up to this many characters skip the thread hop: their only work, the
   * needs-JavaScript scan (about 0.1 µs a character at worst), costs less here than the hop (50-100 µs
   * of CPU); above it a large page would hold the event loop for long.
   */
  inlineMaxChars: 4096,
  /**
   * Pages up to this many characters, and up to convertInlineMaxTags tags, are also converted (main
   * content, markdown, text, the envelope) on the caller's thread (CONTENT_INLINE_MAX_CHARS overrides
   * the characters). The hop to a thread and back cost 0.7-1.2 ms of CPU a page more than converting a
   * 2-8 KB page on the caller's thread, on this 2-core machine: about as much as the conversion itself
   * (bench/format-bench.ts, docs/content.md "Where a page is converted").
   */
  convertInlineMaxChars: 8192,
  /**
   * The conversion's cost grows faster than the page's tags (a page of 256 bare `<p>` took 100 times
   * an article of 120 tags): the tag bound keeps what the event loop may be held for small, whatever
   * the page. The 2.4 KB article of the benchmark has 123.
   */
  convertInlineMaxTags: 160,
} as const;
