/** Left-aligned columns separated by two spaces; the last column is never padded. */
export function table(header: string[], rows: Array<Array<string | number | null | undefined>>): string {
  const cells = [header, ...rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))))];
  const widths = header.map((_h, column) => Math.max(...cells.map((row) => (row[column] ?? '').length)));
  return cells
    .map((row) => row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]))).join('  '))
    .join('\n');
}

/** "1 credit", "0 credits", "2.5 credits". */
export function creditsText(amount: number | string): string {
  return `${amount} ${Number(amount) === 1 ? 'credit' : 'credits'}`;
}

export function credits(micro: number): string {
  const value = micro / 1_000_000;
  return Number.isInteger(value) ? String(value) : value.toFixed(2);
}
