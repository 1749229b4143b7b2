import { commandForms, findExecCommands } from '../../permissions/bash-wrappers';
import { scriptAnalyses, type ParsedBash } from './bash-words';

/**
 * The words of every command the line may run: each form behind its wrappers (`env sed …`,
 * `xargs grep …`), what `find -exec` runs, and the commands of the scripts it runs (`bash -c`).
 */
export function lineCommands(analysis: ParsedBash): string[][] {
  const lines = [analysis, ...scriptAnalyses(analysis).filter((nested) => nested !== undefined)];
  return lines.flatMap((line) =>
    line.commands.flatMap((command) => commandForms(command, true).flatMap((form) => [form.words, ...findExecCommands(form.words)])),
  );
}
