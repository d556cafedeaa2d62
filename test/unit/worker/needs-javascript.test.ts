import { describe, expect, it } from 'vitest';
import { needsJavaScript } from '../../../worker/needs-javascript.js';

/** The check as it was written with backtracking regular expressions: the reference the scans must agree with. */
function byRegex(html: string): boolean {
  const body = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html)?.[1] ?? html;
  const visible = body
    .replace(/<(script|style|noscript|template)[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (visible.length >= 200) return false;
  const noscript = [...body.matchAll(/<noscript[^>]*>([\s\S]*?)<\/noscript>/gi)].map((m) => m[1]).join(' ');
  const notice = /(enable|turn on|activate)\s+javascript|javascript\s+(is\s+)?(required|disabled|must be enabled)|requires\s+javascript/i;
  if (notice.test(noscript) || notice.test(visible)) return true;
  const scripts = (body.match(/<script\b/gi) ?? []).length + (html.match(/<script\b[^>]*\bsrc=/gi) ?? []).length;
  const appRoot = /<(div|main|section)[^>]+id=["'](root|app|__next|__nuxt|svelte|ember-app|main-app)["'][^>]*>\s*<\/\1>/i;
  return appRoot.test(body) || (visible.length < 40 && scripts > 0);
}

const FRAGMENTS = [
  '<body>', '<BODY class="x">', '</body>', '<body', '<script>', '<script src="a.js">', '<SCRIPT defer src=x>', '</script>', '<script',
  '<noscript>', '</noscript>', '<noscript', 'Please enable JavaScript', 'javascript is required', '<style>', '</style>', '<template>',
  '</template>', '<div id="root">', '<div id="root"></div>', '<main data-id=\'app\'>', '</main>', '<section id="__next">', '</section>',
  '</div>', '<div>', '<', '>', ' ', '\n', 'text', 'src=', 'id="app"', '<p>', 'A paragraph of visible words. ', '<!--', '-->',
];

/** A deterministic generator, so a failure names a page that can be rebuilt. */
function pages(count: number): string[] {
  let seed = 42;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  return Array.from({ length: count }, () => Array.from({ length: next() % 40 }, () => FRAGMENTS[next() % FRAGMENTS.length]).join(''));
}

describe('needsJavaScript', () => {
  it('decides as the regular expressions it replaced on generated pages', () => {
    for (const html of pages(20_000)) expect([html, needsJavaScript('text/html', html)]).toEqual([html, byRegex(html)]);
  });

  it('flags an empty application shell and a JavaScript notice, not an article', () => {
    expect(needsJavaScript('text/html', '<html><body><div id="root"></div><script src="/app.js"></script></body></html>')).toBe(true);
    expect(needsJavaScript('text/html', '<html><body><noscript>You need to enable JavaScript to run this app.</noscript></body></html>')).toBe(true);
    expect(needsJavaScript('text/html', `<html><body><article><p>${'Readable words. '.repeat(20)}</p></article></body></html>`)).toBe(false);
    expect(needsJavaScript('application/json', '<div id="root"></div>')).toBe(false);
  });

  it('answers pages built to make backtracking quadratic', () => {
    // Each took tens of seconds with the regular expressions at this size; the scans take milliseconds.
    const size = 400_000;
    for (const unit of ['<', '<script', '<noscript', '<body', '<div id="root"', '<script ', '<noscript </noscript>']) {
      expect(needsJavaScript('text/html', unit.repeat(Math.ceil(size / unit.length)))).toBeTypeOf('boolean');
    }
  });
});

describe('needsJavaScript near the visible-text floor', () => {
  it('counts every whitespace character as the regular expressions do', () => {
    for (let code = 0; code < 0x10000; code += 1) {
      const space = String.fromCharCode(code);
      // Shown text when the character is not whitespace, an application shell when it is.
      const html = `<body>a${space.repeat(250)}b<i>${space}</i>c<script></script></body>`;
      expect([code, needsJavaScript('text/html', html)]).toEqual([code, byRegex(html)]);
    }
  });

  it('decides as the regular expressions it replaced on generated pages of about two hundred visible characters', () => {
    let seed = 7;
    const next = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed;
    };
    const words = [...FRAGMENTS, 'words and more words ', '\t', '\u00a0', '\u2028', '<>', '<a <script>x</script> b>', '<style>p{}</style>', '<br/>'];
    for (let page = 0; page < 20_000; page += 1) {
      const html = Array.from({ length: 20 + (next() % 60) }, () => words[next() % words.length]).join('');
      expect([html, needsJavaScript('text/html', html)]).toEqual([html, byRegex(html)]);
    }
  });
});
