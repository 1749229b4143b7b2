/** A plain-text table: a header row, then one row per entry, columns padded to fit. */
export function formatTable(headers: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const clean = (cell: string) => cell.replace(/\s*\n\s*/g, ' ');
  const all = [headers, ...rows].map((row) => row.map(clean));
  const widths = headers.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  // The last column is not padded, so lines end without trailing spaces.
  const line = (row: readonly string[]) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ');
  return `${all.map(line).join('\n')}\n`;
}
