import * as vscode from 'vscode';
import type { HookState } from '../core/hooks/registry';
import type { HookSourceKind } from '../core/hooks/types';
import { explainInactiveReason, handlerTarget } from '../shared/manager-view-builders';
import { showInformation } from './notifications';
import { showQuickPick } from './quick-inputs';

const SOURCE_LABELS: Record<HookSourceKind, string> = {
  user: 'user settings',
  workspace: 'workspace settings',
  folder: 'folder settings',
  hooksJson: '.vscode/hooks.json',
  builtin: 'built-in',
  session: 'this session',
  cli: 'command line',
  claudeUser: '~/.claude/settings.json',
  claudeProject: '.claude/settings.json',
  claudeLocal: '.claude/settings.local.json',
  managed: 'managed policy (locked)',
};

export function sourceLabel(kind: HookSourceKind): string {
  return SOURCE_LABELS[kind];
}

export interface HookPickItem extends vscode.QuickPickItem {
  id: string;
}

/** One row per hook: its name, then event and source, then what it runs (and why it is off). */
export function hookPickItem(state: HookState): HookPickItem {
  const { hook } = state;
  const matcher = hook.matcher && hook.matcher !== '*' ? ` (${hook.matcher})` : '';
  const detail = [handlerTarget(hook.spec)];
  if (state.inactiveReason && state.inactiveReason !== 'disabled') detail.push(explainInactiveReason(state.inactiveReason));
  return {
    id: hook.id,
    label: hook.name,
    description: `${hook.event}${matcher} · ${sourceLabel(hook.source.kind)}`,
    detail: detail.join(' — '),
  };
}

/** Configured hooks first (by event), built-ins last: those are the ones people toggle most. */
function byRelevance(a: HookState, b: HookState): number {
  const rank = (s: HookState) => (s.hook.source.kind === 'builtin' ? 1 : 0);
  return rank(a) - rank(b) || a.hook.event.localeCompare(b.hook.event) || a.hook.name.localeCompare(b.hook.name);
}

/** A quick pick over `states`; undefined when there is nothing to pick or the user escaped. */
export async function pickHook(states: readonly HookState[], placeHolder: string, emptyMessage: string): Promise<HookState | undefined> {
  if (states.length === 0) {
    void showInformation(`Hookpilot: ${emptyMessage}`);
    return undefined;
  }
  const sorted = [...states].sort(byRelevance);
  const picked = await showQuickPick(sorted.map(hookPickItem), {
    placeHolder,
    matchOnDescription: true,
    matchOnDetail: true,
  });
  return picked && sorted.find((s) => s.hook.id === picked.id);
}
