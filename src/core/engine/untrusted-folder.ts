import { serverWhileUntrusted } from '../hooks/handlers/rpc/rpc-server-env';
import type { ServerDefinition } from '../hooks/types';

/**
 * Where the person's own command hooks and rpc servers run while the workspace is untrusted:
 * an empty private folder, not the workspace (command-env.ts untrustedWorkingFolder). While
 * the workspace is trusted, nothing changes.
 */
export class UntrustedFolder {
  constructor(
    private readonly projectDir: string,
    private readonly folder: string,
    private readonly trusted: () => boolean,
  ) {}

  /** The empty folder while the workspace is untrusted; undefined while trusted. */
  cwd(): string | undefined {
    return this.trusted() ? undefined : this.folder;
  }

  /**
   * The servers as the pool starts them: in the empty folder while the workspace is untrusted.
   * Granting trust changes their cwd back, and a changed cwd restarts a server in the workspace.
   */
  servers(servers: ServerDefinition[]): ServerDefinition[] {
    const emptyDir = this.cwd();
    if (emptyDir === undefined) return servers;
    return servers.map((server) => serverWhileUntrusted(server, this.projectDir, emptyDir).server ?? server);
  }

  /** Why the server (as configured) must not start while the workspace is untrusted (its own cwd is the workspace's), if so. */
  refusal(server: ServerDefinition | undefined): string | undefined {
    const emptyDir = this.cwd();
    if (emptyDir === undefined || server === undefined) return undefined;
    return serverWhileUntrusted(server, this.projectDir, emptyDir).refused;
  }
}
