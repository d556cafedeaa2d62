import type { CheerioAPI } from 'cheerio';
import type { Document, Element } from 'domhandler';
import { ServiceError } from '../../lib/errors/index.js';
import type { ExtractRules } from '../../lib/extract/extract-rules.js';
import { selectorProblem } from '../../lib/extract/selectors.js';
import type { ScrapeParams } from '../../lib/scrape/params-schema.js';
import { runAutoparse } from './autoparse/index.js';
import { contentRoot, keepMainContent, keepOnly, removeMatching, removeNeverContent } from './clean.js';
import { loadDocument, type LoadedDocument } from './document.js';
import { markHtmlNamespace, nameDoctypes } from './html-namespace.js';
import { runExtraction } from './extract.js';
import { CONTENT_LIMITS } from './content-limits.js';
import { collectLinks } from './links.js';
import { toMarkdown } from './markdown.js';
import { emptyMetadata, readMetadata, type PageMetadata } from './metadata/index.js';
import { toText } from './text.js';
import { findElements } from './walk.js';

export type DocumentFormat = 'html' | 'markdown' | 'text';

export interface AnalysisRequest {
  format: DocumentFormat | null;
  /** Read the page's metadata (the envelope carries it; a bare document does not). */
  metadata: boolean;
  links: boolean;
  autoparse: boolean;
  extract: ExtractRules | null;
}

export interface Analysis {
  content: string | null;
  metadata: PageMetadata;
  links: string[] | null;
  autoparse: Record<string, unknown> | null;
  extracted: Record<string, unknown> | null;
  emptyFields: string[];
  warnings: string[];
}

export function isHtmlMedia(mediaType: string): boolean {
  return mediaType === 'text/html' || mediaType === 'application/xhtml+xml' || mediaType === '';
}

/** main_content_only when the caller did not say: on for markdown and text, off for html. */
function mainContentOnly(params: ScrapeParams, format: DocumentFormat): boolean {
  return params.main_content_only ?? format !== 'html';
}

function checkTagSelectors(params: ScrapeParams): void {
  const all = [...params.include_tags.map((s) => ['include_tags', s]), ...params.exclude_tags.map((s) => ['exclude_tags', s])];
  if (all.length > CONTENT_LIMITS.maxTagSelectors) {
    throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `include_tags and exclude_tags: more than ${CONTENT_LIMITS.maxTagSelectors} selectors`);
  }
  for (const [field, selector] of all) {
    const problem = selectorProblem(selector);
    if (problem) throw new ServiceError('ERR::REQUEST::INVALID_PARAMETER', `${field}: "${selector.slice(0, 80)}": ${problem}`);
  }
}

/** include_tags, then exclude_tags, then main_content_only, in that order (docs/content.md). */
function selectContent(loaded: LoadedDocument, params: ScrapeParams, format: DocumentFormat): void {
  if (params.include_tags.length > 0) keepOnly(loaded.$, params.include_tags);
  if (params.exclude_tags.length > 0) removeMatching(loaded.$, params.exclude_tags);
  if (mainContentOnly(params, format)) keepMainContent(loaded.document);
}

function firstRow(table: Element): Element | undefined {
  for (const child of table.children) {
    if (child.type !== 'tag') continue;
    if (child.name === 'tr') return child;
    if (child.name === 'thead' || child.name === 'tbody' || child.name === 'tfoot') {
      const row = child.children.find((node): node is Element => node.type === 'tag' && node.name === 'tr');
      if (row) return row;
    }
  }
  return undefined;
}

/** A table whose first row has no `th` gets that row promoted to a header, so GFM can render it. */
function promoteTableHeaders(document: Document): void {
  findElements(document, (element) => element.name === 'table').forEach((table) => {
    const row = firstRow(table);
    if (!row || row.children.some((cell) => cell.type === 'tag' && cell.name === 'th')) return;
    for (const cell of row.children) if (cell.type === 'tag' && cell.name === 'td') cell.name = 'th';
  });
}

function render(loaded: LoadedDocument, format: DocumentFormat): string {
  const { document } = loaded;
  if (format === 'html') {
    markHtmlNamespace([document]);
    nameDoctypes(document);
    return loaded.$.html();
  }
  removeNeverContent(document);
  if (format === 'text') return toText(document);
  promoteTableHeaders(document);
  const root = contentRoot(document);
  return toMarkdown(root.children, () => {
    markHtmlNamespace([root]);
    return loaded.$(root).html() ?? '';
  });
}

/** Non-HTML text, and html without any selection asked, is answered exactly as fetched. */
export function servedAsIs(mediaType: string, params: ScrapeParams, format: DocumentFormat): boolean {
  if (!isHtmlMedia(mediaType)) return true;
  const selecting = params.include_tags.length > 0 || params.exclude_tags.length > 0 || params.main_content_only === true;
  return format === 'html' && !selecting;
}

/**
 * Whether the answer shows or reads the page's URLs: all do but text of the whole page with no
 * selectors (which match attributes) and nothing else asked.
 */
function readsUrls(params: ScrapeParams, request: AnalysisRequest): boolean {
  if (request.metadata || request.links || request.autoparse || request.extract) return true;
  if (request.format !== 'text' || params.include_tags.length > 0 || params.exclude_tags.length > 0) return true;
  return mainContentOnly(params, 'text');
}

/** Parses the page once; reads links, metadata, autoparse and extract from the whole page, then renders. */
export function analysePage(page: { finalUrl: string; text: string; mediaType: string }, params: ScrapeParams, request: AnalysisRequest): Analysis {
  checkTagSelectors(params);
  const loaded = loadDocument(page.text, page.finalUrl, { absoluteUrls: readsUrls(params, request) });
  const { baseUrl, warnings } = loaded;
  const extractResult = request.extract ? runExtraction(loaded.$, request.extract) : null;
  const analysis: Analysis = {
    content: null,
    metadata: request.metadata ? readMetadata(loaded.$, baseUrl) : emptyMetadata(),
    links: request.links ? collectLinks(loaded.$, baseUrl) : null,
    autoparse: request.autoparse ? runAutoparse(loaded.$) : null,
    extracted: extractResult?.data ?? null,
    emptyFields: extractResult?.emptyFields ?? [],
    warnings,
  };
  if (request.format === null) return analysis;
  if (servedAsIs(page.mediaType, params, request.format)) analysis.content = page.text;
  else {
    selectContent(loaded, params, request.format);
    analysis.content = render(loaded, request.format);
  }
  return analysis;
}

/** Just the document in one format, for answers without the envelope. */
export function renderDocument(
  page: { finalUrl: string; text: string; mediaType: string },
  params: ScrapeParams,
  format: DocumentFormat,
): { content: string; warnings: string[] } {
  if (servedAsIs(page.mediaType, params, format)) {
    checkTagSelectors(params);
    return { content: page.text, warnings: [] };
  }
  const analysis = analysePage(page, params, { format, metadata: false, links: false, autoparse: false, extract: null });
  return { content: analysis.content ?? '', warnings: analysis.warnings };
}
