import type TurndownService from 'turndown';

/**
 * GFM tables in linear time. (The GFM plugins walk live DOM collections per cell, which is
 * quadratic under turndown's DOM: a 1,000-row table took seconds.) The pipeline has already
 * promoted a first row of `td` to `th`, so a table's header is its first row.
 */
function isHeaderRow(row: HTMLElement): boolean {
  for (let node = row.previousElementSibling; node; node = node.previousElementSibling) {
    if (node.nodeName === 'TR') return false;
  }
  const section = row.parentElement;
  if (!section || section.nodeName === 'TABLE') return true;
  for (let node = section.previousElementSibling; node; node = node.previousElementSibling) {
    if (node.nodeName === 'THEAD' || node.nodeName === 'TBODY' || node.nodeName === 'TFOOT' || node.nodeName === 'TR') {
      return false;
    }
  }
  return true;
}

function columnCount(row: HTMLElement): number {
  let count = 0;
  for (let cell = row.firstElementChild; cell; cell = cell.nextElementSibling) {
    if (cell.nodeName === 'TD' || cell.nodeName === 'TH') count += Math.max(1, Number(cell.getAttribute('colspan')) || 1);
  }
  return count;
}

function cellText(content: string): string {
  return content.replace(/\n+/g, ' ').replace(/\|/g, '\\|').trim();
}

export function tableRules(service: TurndownService): void {
  service.addRule('tableCell', {
    filter: ['th', 'td'],
    replacement: (content, node) => {
      const span = Math.min(64, Math.max(1, Number((node as HTMLElement).getAttribute('colspan')) || 1));
      return ` ${cellText(content)} |${' |'.repeat(span - 1)}`;
    },
  });
  service.addRule('tableRow', {
    filter: 'tr',
    replacement: (content, node) => {
      const row = node as HTMLElement;
      const line = `\n|${content}`;
      if (!isHeaderRow(row)) return line;
      return `${line}\n|${' --- |'.repeat(Math.max(1, columnCount(row)))}`;
    },
  });
  service.addRule('tableSection', {
    filter: ['thead', 'tbody', 'tfoot'],
    replacement: (content) => content,
  });
  service.addRule('tableCaption', {
    filter: ['caption'],
    replacement: (content) => `\n\n${content.trim()}\n\n`,
  });
  service.addRule('table', {
    filter: 'table',
    replacement: (content) => `\n\n${content.replace(/^\n+/, '')}\n\n`,
  });
}
