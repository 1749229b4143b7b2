import { UrlAllowlist } from '../hooks/handlers/url-allowlist';
import type { HookHandler } from '../hooks/types';

/**
 * An http handler whose URLs must also pass a trusted workspace's own `allowedHttpHookUrls`
 * when the user set that list too: the workspace narrows the user's list, never widens it.
 */
export function limitHttpUrls(handler: HookHandler, workspacePatterns: readonly string[] | undefined): HookHandler {
  if (workspacePatterns === undefined) return handler;
  const allowlist = new UrlAllowlist(workspacePatterns);
  return {
    run: (invocation) => {
      const { spec } = invocation.hook;
      const checked = spec.type === 'http' ? allowlist.check(spec.url) : undefined;
      if (checked && !checked.ok)
        return Promise.resolve({
          status: 'error',
          error: `${checked.error} (the workspace's allowedHttpHookUrls)`,
          trace: { durationMs: 0 },
        });
      return handler.run(invocation);
    },
  };
}
