import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchRow, BenchSuite } from './types';

// Every bench/*.bench.ts exports a default BenchSuite; rows print as one table.
async function main(): Promise<void> {
  const dir = __dirname;
  const only = process.argv[2];
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.ts') && (!only || f.includes(only)))
    .sort();
  const rows: Array<BenchRow & { suite: string }> = [];
  for (const file of files) {
    const mod = (await import(join(dir, file))) as { default: BenchSuite };
    const suite = mod.default;
    process.stderr.write(`running ${suite.title}...\n`);
    for (const row of await suite.run()) rows.push({ ...row, suite: suite.title });
  }
  printTable(rows);
}

function fmt(n: number | undefined): string {
  if (n === undefined) return '';
  if (n >= 1000) return Math.round(n).toLocaleString('en-US');
  return n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function printTable(rows: Array<BenchRow & { suite: string }>): void {
  const header = ['suite', 'benchmark', 'unit', 'p50', 'p99', 'value', 'target', 'ok'];
  const cells = rows.map((r) => [
    r.suite,
    r.name,
    r.unit,
    fmt(r.p50),
    fmt(r.p99),
    fmt(r.value),
    r.target ?? '',
    r.ok === undefined ? '' : r.ok ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => '| ' + c.map((v, i) => v.padEnd(widths[i])).join(' | ') + ' |';
  console.log(line(header));
  console.log('|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|');
  for (const c of cells) console.log(line(c));
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exit(1);
});
