import TurndownService from 'turndown';
import { strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import type { AnyNode } from 'domhandler';
import { markdownDom } from './markdown-dom.js';
import { tableRules } from './markdown-tables.js';
import { indexRulesByName } from './turndown-rules.js';
import { collapseWhitespace } from './whitespace.js';

const LANGUAGE_CLASS = /(?:^|\s)(?:language|lang|highlight-source|brush:?)-?([\w#+.-]+)/i;

function codeLanguage(node: HTMLElement): string {
  const code = node.firstElementChild?.nodeName === 'CODE' ? node.firstElementChild : null;
  for (const element of [code, node, node.parentElement]) {
    const match = element?.getAttribute('class')?.match(LANGUAGE_CLASS);
    if (match) return match[1].toLowerCase();
    const data = element?.getAttribute('data-lang') ?? element?.getAttribute('data-language');
    if (data) return data.toLowerCase();
  }
  return '';
}

function fence(code: string): string {
  const longest = Math.max(2, ...(code.match(/`+/g) ?? []).map((run) => run.length));
  return '`'.repeat(longest + 1);
}

function isUsableHref(href: string | null): href is string {
  return href !== null && href.trim() !== '' && !/^\s*(javascript:|#)/i.test(href);
}

/**
 * A URL as a markdown link destination. CommonMark ends a bare destination at whitespace and at a `)`
 * without its `(`, so such a URL would end the link early and leak the rest of it into the text: its
 * parentheses are then percent-encoded (all of them, so they stay balanced), and whitespace too. A URL
 * whose parentheses pair up (`/wiki/Foo_(bar)`) is written as it is.
 */
export function linkDestination(url: string): string {
  const trimmed = url.trim();
  if (!/[()\s]/.test(trimmed)) return trimmed;
  const spaced = trimmed.replace(/\s/g, (space) => encodeURIComponent(space));
  return parenthesesPairUp(spaced) ? spaced : spaced.replace(/\(/g, '%28').replace(/\)/g, '%29');
}

function parenthesesPairUp(text: string): boolean {
  let open = 0;
  for (const char of text) {
    if (char === '(') open += 1;
    else if (char === ')' && --open < 0) return false;
  }
  return open === 0;
}

function escapeTitle(title: string): string {
  return title.replace(/"/g, '\\"').replace(/\n+/g, ' ');
}

/**
 * Whether any of turndown's markdown escapes (its `escape`: backslash, `*`, backtick, brackets and
 * `_` anywhere; `-`, `+ `, `=`, `# `, `~~~`, `>` and `1. ` at the start) could change `text`.
 */
const ESCAPED = /[\\*`[\]_]|^(?:-|\+ |=|#{1,6} |~~~|>|\d+\. )/;

/** turndown runs its thirteen escapes over every text node; most have none of their characters. */
function escapeOnlyWhereNeeded(service: TurndownService): void {
  const escape = service.escape.bind(service);
  service.escape = (text) => (ESCAPED.test(text) ? escape(text) : text);
}

const BULLET = '-';
const BULLET_PREFIX = `${BULLET} `;

/** Trailing newlines as one (a string with one or none is given back as it is). */
function oneTrailingNewline(text: string): string {
  return text.endsWith('\n\n') ? text.replace(/\n+$/, '\n') : text;
}

/** Every line after the first indented by `width` spaces. */
function indented(text: string, width: number): string {
  return text.includes('\n') ? text.replace(/\n/g, `\n${' '.repeat(width)}`) : text;
}

function createService(): TurndownService {
  const service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: BULLET,
    emDelimiter: '_',
    hr: '---',
  });
  service.use(tableRules);
  service.use(strikethrough);
  service.use(taskListItems);
  escapeOnlyWhereNeeded(service);
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'form', 'button', 'select', 'input', 'textarea']);
  service.addRule('codeBlock', {
    filter: (node) => node.nodeName === 'PRE',
    replacement: (_content, node) => {
      const element = node as HTMLElement;
      const code = (element.textContent ?? '').replace(/\n$/, '');
      const marker = fence(code);
      return `\n\n${marker}${codeLanguage(element)}\n${code}\n${marker}\n\n`;
    },
  });
  service.addRule('link', {
    filter: (node) => node.nodeName === 'A',
    replacement: (content, node) => {
      const element = node as HTMLElement;
      const text = collapseWhitespace(content);
      const href = element.getAttribute('href');
      if (text === '') return '';
      if (!isUsableHref(href)) return content;
      const title = element.getAttribute('title');
      const titlePart = title ? ` "${escapeTitle(title)}"` : '';
      return `[${text}](${linkDestination(href)}${titlePart})`;
    },
  });
  service.addRule('listItem', {
    filter: 'li',
    replacement: (content, node, options) => {
      const element = node as HTMLElement;
      const parent = element.parentNode as HTMLElement | null;
      let prefix = BULLET_PREFIX;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        prefix = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, element)}. `;
      }
      const body = indented(oneTrailingNewline(content.replace(/^\n+/, '')), prefix.length);
      return prefix + body + (element.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  service.addRule('image', {
    filter: (node) => node.nodeName === 'IMG',
    replacement: (_content, node) => {
      const element = node as HTMLElement;
      const src = element.getAttribute('src') ?? element.getAttribute('data-src');
      if (!src || /^\s*data:/i.test(src)) return '';
      const alt = (element.getAttribute('alt') ?? '').replace(/[\[\]\n]/g, ' ').trim();
      return `![${alt}](${linkDestination(src)})`;
    },
  });
  indexRulesByName(service);
  return service;
}

let service: TurndownService | null = null;

/**
 * Parsed nodes to GitHub-flavoured markdown. One converter per thread, built on first use. turndown
 * reads them as a DOM built from the nodes themselves, or, where the HTML parsing rules could read
 * their markup as another tree (markdown-dom.ts), from their markup (`markup`).
 */
export function toMarkdown(nodes: AnyNode[], markup: () => string): string {
  return convert(markdownDom(nodes) ?? markup());
}

/** Markup to markdown, read by turndown's own parser (the road toMarkdown takes when it cannot build the DOM). */
export function markdownOfMarkup(html: string): string {
  return convert(html);
}

function convert(input: string | HTMLElement): string {
  service ??= createService();
  return service
    .turndown(input)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
