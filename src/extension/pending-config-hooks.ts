import path from 'node:path';
import { Transcript } from '../core/agent/transcript';
import type { HookEngine } from '../core/engine/hook-engine';
import { errorMessage } from '../core/error-message';
import { configChangeSource, configChangeVerdict, type ConfigChangeVerdict } from '../core/hooks/config-change';
import type { ConfigChangeSource } from '../core/hooks/payloads';
import type { HookPayload } from '../core/hooks/types';
import type { HookpilotLog } from './log';
import type { SourceText } from './pending-config-guard';
import type { GovernedSource } from './pending-config-sources';

/** The session a ConfigChange belongs to, when the chat has one. */
export type CurrentSession = () => string | undefined;

/** Outside a chat session, the payload still names one: the audit log keeps these runs together. */
const NO_SESSION = 'config-change';

export interface ConfigChangeHooksOptions {
  engine: HookEngine;
  log: HookpilotLog;
  /** The workspace folders: a governed file inside one is the project's. */
  projectDirs: () => readonly string[];
}

/**
 * Runs the ConfigChange hooks of the configuration applied now before a change to a governed
 * source applies (docs/hooks.md#configchange). The hooks judge exactly the content that would
 * apply (`new_content`): the file may change again while they run.
 */
export class ConfigChangeHooks {
  private session: CurrentSession = () => undefined;

  constructor(private readonly options: ConfigChangeHooksOptions) {}

  /** The chat's session, once there is a chat: its id and transcript go into the payload. */
  useSession(session: CurrentSession): void {
    this.session = session;
  }

  sourceOf(governed: GovernedSource): ConfigChangeSource {
    // The workspace's settings are the project's wherever the .code-workspace file lives.
    if (governed.kind === 'workspaceSettings') return 'project_settings';
    return configChangeSource(governed.file, { projectDirs: this.options.projectDirs() });
  }

  async judge(governed: GovernedSource, text: SourceText): Promise<ConfigChangeVerdict> {
    const source = this.sourceOf(governed);
    const { engine, log } = this.options;
    const sessionId = this.session();
    const payload: HookPayload = {
      hook_event_name: 'ConfigChange',
      session_id: sessionId ?? NO_SESSION,
      transcript_path: sessionId ? Transcript.pathFor(path.join(engine.options.storageDir, 'transcripts'), sessionId) : '',
      cwd: this.options.projectDirs()[0] ?? '',
      source,
      file_path: governed.file,
      new_content: text ?? null,
    };
    let verdict: ConfigChangeVerdict;
    try {
      verdict = configChangeVerdict(await engine.dispatcher.dispatch(payload), source);
    } catch (error) {
      // The guard could not run: that is never an allow.
      const reason = `the ConfigChange hooks could not run: ${errorMessage(error)}`;
      verdict = source === 'policy_settings' ? { blocked: false, warnings: [reason] } : { blocked: true, hookName: 'Hookpilot', reason, warnings: [] };
    }
    for (const warning of verdict.warnings) log.warn(`${governed.label}: ConfigChange ${warning}`);
    return verdict;
  }
}
