/**
 * Whether a fetched HTML page needs JavaScript to show its content (mode=auto escalates then):
 * an empty application shell, or an explicit "enable JavaScript" notice with little else.
 * Documented in docs/mode-auto.md.
 *
 * Every scan here is linear in the page's length, whatever the page: the content pipeline runs small
 * pages on the event loop (worker/content/pool.ts), so a page of unclosed `<script` or `<` must not
 * cost quadratic time. The scans give what the regular expressions in the comments would give.
 */
import { isSpace } from './content/whitespace.js';

const JS_REQUIRED_NOTICE = /(enable|turn on|activate)\s+javascript|javascript\s+(is\s+)?(required|disabled|must be enabled)|requires\s+javascript/i;
const APP_ROOT_ID = /id=["'](root|app|__next|__nuxt|svelte|ember-app|main-app)["']/gi;
const VISIBLE_TEXT_FLOOR = 200;

export function needsJavaScript(mediaType: string, html: string | null): boolean {
  if (html === null || !/html/.test(mediaType)) return false;
  const body = bodyOf(html);
  const kept = keptRanges(body, /<(script|style|noscript|template)/gi);
  // Most pages show enough text: that is counted without making a copy of it.
  if (hasVisibleText(body, kept, VISIBLE_TEXT_FLOOR)) return false;
  const visible = spacedText(joinRanges(body, kept)).trim();
  const noscript = noscriptTexts(body).join(' ');
  if (JS_REQUIRED_NOTICE.test(noscript) || JS_REQUIRED_NOTICE.test(visible)) return true;
  const scripts = (body.match(/<script\b/gi) ?? []).length + countScriptsWithSrc(html);
  return hasEmptyAppRoot(body) || (visible.length < 40 && scripts > 0);
}

/** `/<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html`. */
function bodyOf(html: string): string {
  const close = lastIndexOfPattern(html, /<\/body>/gi);
  if (close < 0) return html;
  // Before the last '>' every `<body` has a '>' after it, so the first one found ends the search.
  const open = /<body[^>]*>/i.exec(html.slice(0, html.lastIndexOf('>') + 1));
  if (!open || open.index + open[0].length > close) return html;
  return html.slice(open.index + open[0].length, close);
}

function lastIndexOfPattern(text: string, pattern: RegExp): number {
  let last = -1;
  pattern.lastIndex = 0;
  for (let found = pattern.exec(text); found; found = pattern.exec(text)) last = found.index;
  return last;
}

/** The closing tag of each name keptRanges meets, a global, case-insensitive pattern made once. */
const CLOSERS = new Map<string, RegExp>();

/**
 * What `text.replace(/<(name|…)[\s\S]*?<\/\1>/gi, ' ')` keeps of `text`, for the names of `opening`
 * (a global, case-insensitive pattern): the ranges [start, end) in pairs, each removed block
 * between two of them standing for one space.
 */
function keptRanges(text: string, opening: RegExp): number[] {
  const unclosed = new Set<string>();
  const kept: number[] = [];
  let from = 0;
  opening.lastIndex = 0;
  for (let open = opening.exec(text); open; open = opening.exec(text)) {
    const name = open[1].toLowerCase();
    if (unclosed.has(name)) continue;
    let closing = CLOSERS.get(name);
    if (!closing) CLOSERS.set(name, (closing = new RegExp(`</${name}>`, 'gi')));
    closing.lastIndex = opening.lastIndex;
    const close = closing.exec(text);
    // No closer after this one: none after any later one either.
    if (!close) {
      unclosed.add(name);
      continue;
    }
    kept.push(from, open.index);
    from = closing.lastIndex;
    opening.lastIndex = from;
  }
  kept.push(from, text.length);
  return kept;
}

function joinRanges(text: string, ranges: number[]): string {
  let out = text.slice(ranges[0], ranges[1]);
  for (let i = 2; i < ranges.length; i += 2) out += ` ${text.slice(ranges[i], ranges[i + 1])}`;
  return out;
}

/**
 * Whether `spacedText` of the kept ranges, trimmed, is at least `floor` characters long: its characters
 * other than tags and whitespace, and one space between two of them wherever a run of tags and
 * whitespace parts them.
 */
function hasVisibleText(text: string, ranges: number[], floor: number): boolean {
  const lastTagEnd = lastIndexInRanges(text, ranges, '>');
  let length = 0;
  let gap = false;
  let inTag = false;
  for (let r = 0; r < ranges.length; r += 2) {
    // The space standing for a removed block.
    if (r > 0 && !inTag) gap = true;
    const end = ranges[r + 1];
    for (let i = ranges[r]; i < end; i += 1) {
      const code = text.charCodeAt(i);
      if (inTag) {
        if (code === GT) inTag = false;
      } else if (isSpace(code)) gap = true;
      // `<[^>]+>`: a tag needs a character before its '>', and a '>' after it (before the last one, there is).
      else if (code === LT && i < lastTagEnd && (i + 1 < end ? text.charCodeAt(i + 1) !== GT : true)) {
        inTag = true;
        gap = true;
      } else {
        length += gap && length > 0 ? 2 : 1;
        gap = false;
        if (length >= floor) return true;
      }
    }
  }
  return false;
}

const LT = 0x3c;
const GT = 0x3e;

/** Where `char` last occurs in the ranges of `text`, else -1. */
function lastIndexInRanges(text: string, ranges: number[], char: string): number {
  for (let r = ranges.length - 2; r >= 0; r -= 2) {
    if (ranges[r + 1] === ranges[r]) continue;
    const at = text.lastIndexOf(char, ranges[r + 1] - 1);
    if (at >= ranges[r]) return at;
  }
  return -1;
}

/**
 * `text.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ')`, a run of tags and spaces at a time. Past the
 * last '>' no tag can match, so that tail is not searched for one (a '<' there would cost a scan to
 * the end); a run of spaces across that cut is one space.
 */
function spacedText(text: string): string {
  const end = text.lastIndexOf('>') + 1;
  const head = text.slice(0, end).replace(/(?:<[^>]+>|\s)+/g, ' ');
  const tail = text.slice(end).replace(/\s+/g, ' ');
  return head.endsWith(' ') && tail.startsWith(' ') ? head + tail.slice(1) : head + tail;
}

/** `[...body.matchAll(/<noscript[^>]*>([\s\S]*?)<\/noscript>/gi)].map((m) => m[1])`. */
function noscriptTexts(body: string): string[] {
  const nextGt = forwardFinder(body, />/g);
  const nextClose = forwardFinder(body, /<\/noscript>/gi);
  const opening = /<noscript/gi;
  const texts: string[] = [];
  for (let open = opening.exec(body); open; open = opening.exec(body)) {
    const gt = nextGt(open.index + open[0].length);
    const close = gt && nextClose(gt.end);
    // A later opening's first '>' is no earlier, so it finds no closer either.
    if (!gt || !close) break;
    texts.push(body.slice(gt.end, close.index));
    opening.lastIndex = close.end;
  }
  return texts;
}

/**
 * Where `pattern` (global) next matches at or after `from`, remembered while the searches move
 * forward: the scans below ask with growing `from`, so the text is searched once in all.
 */
function forwardFinder(text: string, pattern: RegExp): (from: number) => { index: number; end: number } | null {
  let found: { index: number; end: number } | null = null;
  let searched = -1;
  return (from) => {
    if (searched >= 0 && from >= searched && (found === null || found.index >= from)) return found;
    pattern.lastIndex = from;
    const match = pattern.exec(text);
    found = match ? { index: match.index, end: match.index + match[0].length } : null;
    searched = from;
    return found;
  };
}

/** `(html.match(/<script\b[^>]*\bsrc=/gi) ?? []).length`: a src= before the tag's first '>'. */
function countScriptsWithSrc(html: string): number {
  const nextSrc = forwardFinder(html, /\bsrc=/gi);
  const nextGt = forwardFinder(html, />/g);
  const opening = /<script\b/gi;
  let count = 0;
  for (let open = opening.exec(html); open; open = opening.exec(html)) {
    const from = open.index + open[0].length;
    const src = nextSrc(from);
    if (!src) break;
    const gt = nextGt(from);
    if (gt && gt.index < src.index) continue;
    count += 1;
    // The regex resumes after the src= it matched.
    opening.lastIndex = src.end;
  }
  return count;
}

/** `/<(div|main|section)[^>]+id=["'](root|…)["'][^>]*>\s*<\/\1>/i.test(body)`. */
function hasEmptyAppRoot(body: string): boolean {
  const nextId = forwardFinder(body, APP_ROOT_ID);
  const nextGt = forwardFinder(body, />/g);
  const closedAt = new Map<number, string | null>();
  const opening = /<(div|main|section)/gi;
  for (let open = opening.exec(body); open; open = opening.exec(body)) {
    const from = open.index + open[0].length;
    const gt = nextGt(from);
    if (!gt) return false;
    // `[^>]+` takes at least one character before id=.
    const id = nextId(from + 1);
    if (!id || id.end > gt.index) continue;
    if (!closedAt.has(gt.end)) {
      const closer = /\s*<\/(div|main|section)>/iy;
      closer.lastIndex = gt.end;
      closedAt.set(gt.end, closer.exec(body)?.[1].toLowerCase() ?? null);
    }
    if (closedAt.get(gt.end) === open[1].toLowerCase()) return true;
  }
  return false;
}
