import { isLockedSource, isWorkspaceSourced } from '../hooks/hook-switches';
import { UrlAllowlist } from '../hooks/handlers/url-allowlist';
import type { HookHandler } from '../hooks/types';

export interface ScopedHttpHandlers {
  /** For the managed policy's locked hooks, under the policy's allowlists alone. */
  managed: HookHandler;
  own: HookHandler;
  workspace: HookHandler;
}

/**
 * Http hooks by where they come from. The user's own run with `own`, under the user's
 * allowlists alone: a repository's lists must not make the user's guards fail, since a failed
 * guard lets the call through; the policy's run with `managed`, so that neither can make the
 * policy's fail. The workspace's run with `workspace`, whose URLs must also pass the
 * workspace's own `allowedHttpHookUrls`: the workspace narrows the user's list, never widens it.
 */
export function scopeHttpHandlers(
  { managed, own, workspace }: ScopedHttpHandlers,
  workspacePatterns: readonly string[] | undefined,
): HookHandler {
  const allowlist = workspacePatterns === undefined ? undefined : new UrlAllowlist(workspacePatterns);
  return {
    run: (invocation) => {
      if (isLockedSource(invocation.hook.source.kind)) return managed.run(invocation);
      if (!isWorkspaceSourced(invocation.hook)) return own.run(invocation);
      const { spec } = invocation.hook;
      const checked = allowlist && spec.type === 'http' ? allowlist.check(spec.url) : undefined;
      if (checked && !checked.ok)
        return Promise.resolve({
          status: 'error',
          error: `${checked.error} (the workspace's allowedHttpHookUrls)`,
          trace: { durationMs: 0 },
        });
      return workspace.run(invocation);
    },
  };
}
