import { homedir } from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { Transcript } from '../core/agent/transcript';
import type { HookEngine } from '../core/engine/hook-engine';
import { errorMessage } from '../core/error-message';
import { configChangeSource, configChangeVerdict, describeBlockedChange, type ConfigChangeVerdict } from '../core/hooks/config-change';
import { claudeSettingsMode } from '../core/hooks/config/claude-settings';
import { managedPolicyFile } from '../core/hooks/config/managed-policy';
import type { ConfigChangeSource } from '../core/hooks/payloads';
import type { HookPayload } from '../core/hooks/types';
import type { HookpilotLog } from './log';
import type { SourceText } from './pending-config-guard';
import { GOVERNING_KEYS, SECTION, settingsText, type GovernedSource, type GoverningKey } from './pending-config-sources';
import { showWarning } from './notifications';
import { readConfigText } from '../core/read-regular-file';

/** The session a ConfigChange belongs to, when the chat has one. */
export type CurrentSession = () => string | undefined;

/** Outside a chat session, the payload still names one: the audit log keeps these runs together. */
const NO_SESSION = 'config-change';

export interface ConfigChangeHooksOptions {
  engine: HookEngine;
  log: HookpilotLog;
  /** The workspace folders: a governed file inside one is the project's. */
  projectDirs: () => readonly string[];
  /** VS Code's user settings.json, when known. */
  userSettingsFile?: string;
}

/** A source VS Code or the machine applies live: the user's settings, ~/.claude/settings.json, the managed policy. */
interface LiveSource {
  file: string;
  label: string;
  source: ConfigChangeSource;
  read: () => SourceText;
}

function fileText(file: string): SourceText {
  try {
    return readConfigText(file);
  } catch {
    return undefined;
  }
}

/**
 * Runs the ConfigChange hooks of the configuration applied now before a change to a governed
 * source applies (docs/hooks.md#configchange). The hooks judge exactly the content that would
 * apply (`new_content`): the file may change again while they run.
 */
export class ConfigChangeHooks {
  private session: CurrentSession = () => undefined;
  /** What each live source held when last looked at. */
  private readonly live = new Map<string, SourceText>();

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

  /**
   * The sources that apply live, which no hook can keep out: ConfigChange observes each new
   * content (the first look only takes note), and a hook's block is reported, not obeyed.
   */
  async observeLive(): Promise<void> {
    for (const live of this.liveSources()) {
      const text = live.read();
      const known = this.live.has(live.file);
      const before = this.live.get(live.file);
      this.live.set(live.file, text);
      if (!known || before === text) continue;
      const verdict = await this.run(live.file, live.label, live.source, text);
      if (verdict.blocked) {
        const message = `Hookpilot: ${describeBlockedChange(live.label, verdict)}. It applies live in VS Code, so the change applied anyway.`;
        this.options.log.warn(message);
        void showWarning(message);
      }
    }
  }

  private liveSources(): LiveSource[] {
    const { userSettingsFile } = this.options;
    const userValues = () => {
      const configuration = vscode.workspace.getConfiguration(SECTION);
      const values: Partial<Record<GoverningKey, unknown>> = {};
      for (const key of GOVERNING_KEYS) values[key] = configuration.inspect(key)?.globalValue;
      return settingsText(values);
    };
    const sources: LiveSource[] = [
      { file: userSettingsFile ?? 'user settings', label: 'your user settings', source: 'user_settings', read: userValues },
    ];
    const claudeMode = claudeSettingsMode(vscode.workspace.getConfiguration(SECTION).inspect('hooks.claudeSettings')?.globalValue).mode;
    const claudeUser = path.join(homedir(), '.claude', 'settings.json');
    if (claudeMode !== 'off')
      sources.push({ file: claudeUser, label: '~/.claude/settings.json', source: 'user_settings', read: () => fileText(claudeUser) });
    const policy = managedPolicyFile();
    sources.push({ file: policy, label: 'the managed policy', source: 'policy_settings', read: () => fileText(policy) });
    return sources;
  }

  /** What the ConfigChange hooks say about `text` applying to a governed source. */
  judge(governed: GovernedSource, text: SourceText): Promise<ConfigChangeVerdict> {
    return this.run(governed.file, governed.label, this.sourceOf(governed), text);
  }

  private async run(file: string, label: string, source: ConfigChangeSource, text: SourceText): Promise<ConfigChangeVerdict> {
    const { engine, log } = this.options;
    const sessionId = this.session();
    const payload: HookPayload = {
      hook_event_name: 'ConfigChange',
      session_id: sessionId ?? NO_SESSION,
      transcript_path: sessionId ? Transcript.pathFor(path.join(engine.options.storageDir, 'transcripts'), sessionId) : '',
      cwd: this.options.projectDirs()[0] ?? '',
      source,
      file_path: file,
      new_content: text ?? null,
    };
    let verdict: ConfigChangeVerdict;
    try {
      verdict = configChangeVerdict(await engine.dispatcher.dispatch(payload), source);
    } catch (error) {
      // The guard could not run: that is never an allow.
      const reason = `the ConfigChange hooks could not run: ${errorMessage(error)}`;
      verdict =
        source === 'policy_settings'
          ? { blocked: false, warnings: [reason] }
          : { blocked: true, hookName: 'Hookpilot', reason, warnings: [] };
    }
    for (const warning of verdict.warnings) log.warn(`${label}: ConfigChange ${warning}`);
    return verdict;
  }
}
