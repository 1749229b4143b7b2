import type { AgentEvent } from './agent-events';
import type { ChatMessage } from './llm/chat-model';
import type { PermissionSettings } from './permissions/permission-settings';
import { instructionsSection, loadProjectInstructions } from './project-instructions';
import type { SessionHooks } from './session-hooks';
import { baseSystemPrompt, withExtensions } from './system-prompt';
import type { Tool } from './tools/tool';

export interface SessionSystemPromptDeps {
  workspaceRoot: string;
  /** Where a permission rule's `~/` starts. */
  home: string;
  /** The host's addition to the system prompt. */
  extra?: string;
  /** Load AGENTS.md and CLAUDE.md (false for an untrusted workspace). */
  projectInstructions: boolean;
  /** The session's permission rules: a file its Read rules deny or ask for is not loaded. */
  permissions: () => PermissionSettings;
  hooks: SessionHooks;
  emit: (event: AgentEvent) => void;
}

/** A session's system prompt: the base prompt, the host's text and project instructions, then SystemPrompt hooks. */
export class SessionSystemPrompt {
  /** AGENTS.md / CLAUDE.md as loaded for this session ('' when none). */
  private instructionsText?: string;

  constructor(private readonly deps: SessionSystemPromptDeps) {}

  /** Rebuilds the prompt for the tools offered now into `messages[0]`. */
  async refresh(messages: ChatMessage[], tools: readonly Tool[], signal: AbortSignal): Promise<void> {
    const extra = [this.deps.extra ?? '', await this.instructions()].filter((part) => part !== '').join('\n\n');
    const base = baseSystemPrompt({ workspaceRoot: this.deps.workspaceRoot, tools, extra: extra || undefined });
    const result = await this.deps.hooks.dispatch('SystemPrompt', { system_prompt: base }, signal);
    messages[0] = { role: 'system', content: withExtensions(base, result.contexts) };
  }

  /** Read once per session, at its first prompt; each file loaded fires InstructionsLoaded. */
  private async instructions(): Promise<string> {
    if (this.instructionsText !== undefined) return this.instructionsText;
    this.instructionsText = '';
    if (!this.deps.projectInstructions) return '';
    const { loaded, skipped } = await loadProjectInstructions(this.deps.workspaceRoot, this.deps.permissions(), this.deps.home);
    for (const reason of skipped)
      this.deps.emit({ type: 'notice', level: 'warning', message: `project instructions not loaded: ${reason}`, source: 'session' });
    for (const file of loaded)
      this.deps.hooks.emit('InstructionsLoaded', { file_path: file.filePath, memory_type: 'Project', load_reason: 'session_start' });
    this.instructionsText = instructionsSection(loaded);
    return this.instructionsText;
  }
}
