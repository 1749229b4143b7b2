import type { AuditRecord } from '../../core/audit/records';
import { TraceTree, type TraceSpan } from '../../shared/trace-tree';
import { formatTable } from '../output/table';

/** `hookpilot timeline --trace`: the session as a tree of spans (see src/shared/trace-tree.ts). */

export interface TraceSpanJson {
  kind: TraceSpan['kind'];
  label: string;
  event?: string;
  /** Milliseconds after the session's first record. */
  start_ms: number;
  duration_ms: number;
  decision?: string;
  reason?: string;
  /** Not ended in the log (still running, or cut off). */
  open?: true;
  seq?: number;
  children: TraceSpanJson[];
}

function duration(span: TraceSpan): number {
  if (span.record?.type === 'hook_run') return span.record.duration_ms;
  return Number.isFinite(span.startMs) ? Math.max(0, span.endMs - span.startMs) : 0;
}

function reasonOf(span: TraceSpan): string | undefined {
  const record = span.record;
  if (record?.type === 'hook_run') return record.reason ?? record.error;
  if (record?.type === 'permission') return record.reason;
  return undefined;
}

/**
 * The spans worth printing: without `all`, hook runs the caller calls quiet (built-ins that
 * did nothing) are left out, and so are events where nothing else ran.
 */
function shown(spans: readonly TraceSpan[], all: boolean, quiet: (record: AuditRecord) => boolean): TraceSpan[] {
  return spans.filter((span) => {
    if (all) return true;
    if (span.kind === 'hook') return !(span.record && quiet(span.record));
    if (span.kind === 'event') return shown(span.children, all, quiet).length > 0;
    return true;
  });
}

/** What the printed trace, and the filter of quiet hook runs, read of a record once the tree has placed it (see TraceJson). */
const PRINTED_FIELDS = new Set([
  'seq',
  'ts',
  'type',
  'event',
  'dispatch_id',
  'hook_name',
  'source',
  'status',
  'duration_ms',
  'decision',
  'reason',
  'error',
]);

/**
 * The trace, built as the log is read. The tree keeps each span's record for a detail pane
 * the CLI has not got, so of each record only what is printed stays once the tree has placed
 * it: payloads and output go, and a log far larger than memory prints (each record may hold
 * 1 MiB, and their number has no limit).
 */
export class TraceJson {
  private readonly tree = new TraceTree();

  add(record: AuditRecord): void {
    this.tree.add([record]);
    const fields = record as unknown as Record<string, unknown>;
    for (const name of Object.keys(fields)) if (!PRINTED_FIELDS.has(name)) delete fields[name];
  }

  spans(all: boolean, quiet: (record: AuditRecord) => boolean): TraceSpanJson[] {
    const tree = this.tree;
    const toJson = (span: TraceSpan): TraceSpanJson => {
      const out: TraceSpanJson = {
        kind: span.kind,
        label: span.label,
        start_ms: Number.isFinite(span.startMs) ? span.startMs - tree.startMs : 0,
        duration_ms: duration(span),
        children: [],
      };
      if (span.event) out.event = span.event;
      if (span.decision) out.decision = span.decision;
      const reason = reasonOf(span);
      if (reason) out.reason = reason;
      if (span.open) out.open = true;
      if (span.record) out.seq = span.record.seq;
      out.children = shown(span.children, all, quiet).map(toJson);
      return out;
    };
    return shown(tree.roots, all, quiet).map(toJson);
  }
}

/** The tree as a table: start after the session's first record, duration, the span indented by depth, decision, reason. */
export function traceTable(spans: readonly TraceSpanJson[], printable: (cell: string) => string): string {
  const rows: string[][] = [];
  const visit = (span: TraceSpanJson, depth: number) => {
    const label = `${'  '.repeat(depth)}${printable(span.label)}`;
    const decision = span.open ? `${span.decision ?? ''} (not ended)`.trim() : (span.decision ?? '');
    rows.push([
      `+${(span.start_ms / 1000).toFixed(3)}s`,
      span.duration_ms.toFixed(1),
      label,
      printable(decision),
      printable(span.reason ?? ''),
    ]);
    for (const child of span.children) visit(child, depth + 1);
  };
  for (const span of spans) visit(span, 0);
  return formatTable(['START', 'MS', 'SPAN', 'DECISION', 'REASON'], rows);
}
