/** The page as the model reads it: markdown cut to the input budget at a block boundary. */
export interface ModelInput {
  markdown: string;
  /** Characters of the page's markdown left out. */
  cutChars: number;
}

/**
 * Keeps whole blocks (paragraphs, list items, table rows, headings) while the budget allows: the cut
 * falls on the last blank line before the budget, else the last line break, and only a single line
 * longer than half the budget is cut mid-line. A code fence left open by the cut is closed.
 */
export function cutToBudget(markdown: string, maxChars: number): ModelInput {
  if (markdown.length <= maxChars) return { markdown, cutChars: 0 };
  const window = markdown.slice(0, maxChars);
  const floor = Math.floor(maxChars / 2);
  let end = window.lastIndexOf('\n\n');
  if (end < floor) end = window.lastIndexOf('\n');
  if (end < floor) end = safeEnd(window, maxChars);
  let kept = markdown.slice(0, end).trimEnd();
  if ((kept.match(/^```/gm)?.length ?? 0) % 2 === 1) kept += '\n```';
  return { markdown: kept, cutChars: markdown.length - end };
}

/** Never splits a surrogate pair. */
function safeEnd(text: string, end: number): number {
  const code = text.charCodeAt(end - 1);
  return code >= 0xd800 && code <= 0xdbff ? end - 1 : end;
}
