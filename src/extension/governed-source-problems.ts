import type { ConfigProblem } from '../core/hooks/config/config-problems';
import { emptyConfig, type LoadedConfig } from '../core/hooks/config/loaded-config';
import type { HookSourceKind } from '../core/hooks/types';
import { loadMcpDocument } from '../core/mcp/mcp-config';
import type { SourceText } from './pending-config-guard';
import type { GovernedSource } from './pending-config-sources';

function sourceKindOf(source: GovernedSource): HookSourceKind {
  switch (source.kind) {
    case 'hooksJson':
      return 'hooksJson';
    case 'folderSettings':
      return 'folder';
    case 'claudeSettings':
      return source.file.endsWith('settings.local.json') ? 'claudeLocal' : 'claudeProject';
    case 'workspaceSettings':
    case 'mcpJson':
      return 'workspace';
  }
}

function problemsOnly(source: GovernedSource, problems: ConfigProblem[]): LoadedConfig {
  return { ...emptyConfig(), source: { kind: sourceKindOf(source), file: source.file }, problems };
}

/**
 * What the Hook Manager and the editor show for governed files beyond the hook configuration
 * the engine loads: a file that cannot be read (its applied content stays, so nothing else
 * would say so), and what is wrong in the workspace's MCP files as applied.
 */
export function governedSourceProblems(
  sources: readonly GovernedSource[],
  unreadable: ReadonlyMap<string, string>,
  appliedText: (file: string) => SourceText,
): LoadedConfig[] {
  const configs: LoadedConfig[] = [];
  for (const source of sources) {
    const reason = unreadable.get(source.file);
    if (reason !== undefined) {
      const message = `cannot read ${source.label}: ${reason}; the configuration applied before stays in force`;
      configs.push(
        problemsOnly(source, [
          { severity: 'warning', code: 'unreadable', message, path: '', sourceKind: sourceKindOf(source), file: source.file },
        ]),
      );
    }
    const text = source.kind === 'mcpJson' ? appliedText(source.file) : undefined;
    if (text === undefined) continue;
    const { problems } = loadMcpDocument(text, { kind: 'workspace', file: source.file });
    if (problems.length > 0) configs.push(problemsOnly(source, problems));
  }
  return configs;
}
