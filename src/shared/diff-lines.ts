import { visibleLine, visibleText } from '../core/agent/permissions/approval-text';
import type { DiffLineView } from './manager-views';

/** A hunk header; a header without counts (the guard's "not compared") reads to the end. */
const HUNK = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
/**
 * A unified diff's lines as a person must read them: each classed by the diff's structure
 * (inside a hunk its counts say how many removed and added lines follow, so a content line
 * that starts with `++` or `--` is still one), and its text escaped with visibleText, so a
 * control, bidi or zero-width character or a long run of spaces cannot hide what follows.
 */
export function diffLineViews(diff: string): DiffLineView[] {
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const views: DiffLineView[] = [];
  let [oldLeft, newLeft] = [0, 0];
  for (const line of lines) {
    if (line.startsWith('-') && oldLeft > 0) {
      oldLeft--;
      views.push({ kind: 'del', text: visibleLine(line.slice(1)) });
    } else if (line.startsWith('+') && newLeft > 0) {
      newLeft--;
      views.push({ kind: 'add', text: visibleLine(line.slice(1)) });
    } else if (line.startsWith(' ') && oldLeft > 0 && newLeft > 0) {
      oldLeft--;
      newLeft--;
      views.push({ kind: 'same', text: visibleLine(line.slice(1)) });
    } else if (line.startsWith('@@')) {
      const counts = HUNK.exec(line);
      [oldLeft, newLeft] = counts ? [Number(counts[1] ?? 1), Number(counts[2] ?? 1)] : [Infinity, Infinity];
      views.push({ kind: 'hunk', text: visibleText(line) });
    } else if (!line.startsWith('Index: ') && !/^=+$/.test(line)) {
      // File headers, and "\ No newline at end of file". The diff library's "Index:" and "====" lines say nothing a person needs.
      views.push({ kind: 'meta', text: visibleText(line.replace(/\t/g, ' ')) });
    }
  }
  return views;
}
