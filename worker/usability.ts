/**
 * Whether a fetched HTML page needs JavaScript to show its content (mode=auto escalates then):
 * an empty application shell, or an explicit "enable JavaScript" notice with little else.
 * Documented in docs/mode-auto.md.
 */
const JS_REQUIRED_NOTICE = /(enable|turn on|activate)\s+javascript|javascript\s+(is\s+)?(required|disabled|must be enabled)|requires\s+javascript/i;
const APP_ROOT = /<(div|main|section)[^>]+id=["'](root|app|__next|__nuxt|svelte|ember-app|main-app)["'][^>]*>\s*<\/\1>/i;
const VISIBLE_TEXT_FLOOR = 200;

export function needsJavaScript(mediaType: string, html: string | null): boolean {
  if (html === null || !/html/.test(mediaType)) return false;
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const visible = body
    .replace(/<(script|style|noscript|template)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (visible.length >= VISIBLE_TEXT_FLOOR) return false;
  const noscript = [...body.matchAll(/<noscript[^>]*>([\s\S]*?)<\/noscript>/gi)].map((m) => m[1]).join(' ');
  if (JS_REQUIRED_NOTICE.test(noscript) || JS_REQUIRED_NOTICE.test(visible)) return true;
  const scripts = (body.match(/<script\b/gi) ?? []).length + (html.match(/<script\b[^>]*\bsrc=/gi) ?? []).length;
  return APP_ROOT.test(body) || (visible.length < 40 && scripts > 0);
}
