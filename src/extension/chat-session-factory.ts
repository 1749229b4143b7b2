import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { AgentSession } from '../core/agent/agent-session';
import { IDLE_PROMPT_MS } from '../core/agent/idle-prompt';
import { loadSubagentDefinitions, subagentFolders, type SubagentDefinition } from '../core/agent/subagent-definitions';
import { errorMessage } from '../core/error-message';
import type { ChatControllerDeps } from './chat-controller';
import { ConfiguredChatModel } from './configured-chat-model';
import { showError } from './notifications';

const APPROVAL_BACKSTOP_MS = 5_000;

/** Where the chat's transcripts live: the engine's storage, never the workspace. */
export function chatTranscriptDir(deps: Pick<ChatControllerDeps, 'engineHost'>): string {
  return path.join(deps.engineHost.engine.options.storageDir, 'transcripts');
}

/** `.claude/agents/` of the user and, in a trusted workspace, of the workspace. */
function subagents(deps: ChatControllerDeps, projectDir: string): SubagentDefinition[] {
  const loaded = loadSubagentDefinitions(subagentFolders(projectDir, os.homedir(), vscode.workspace.isTrusted));
  for (const problem of loaded.problems) deps.log.warn(`subagent skipped: ${problem}`);
  return loaded.definitions;
}

/**
 * A new (not yet started) agent session for the chat: the window's engine, approver, MCP
 * servers and settings. Waits for the MCP servers, whose tools the session offers.
 */
export async function createChatSession(deps: ChatControllerDeps, modelName: string, sessionId?: string): Promise<AgentSession> {
  const { engineHost, config, mcp } = deps;
  const projectDir = engineHost.projectDir;
  if (!projectDir) throw new Error('Open a folder first: the agent works inside a workspace folder.');
  const engine = engineHost.engine;
  await mcp?.ensureStarted();
  return new AgentSession({
    sessionId,
    workspaceRoot: projectDir,
    model: new ConfiguredChatModel(
      () => config.resolveEndpoint(),
      modelName,
      (message) => deps.log.warn(message),
    ),
    modelName,
    dispatcher: engine.dispatcher,
    approver: deps.approver,
    permissions: () => config.permissions(projectDir),
    protectedPaths: () => [...engine.protectedPaths(), ...(mcp?.protectedPaths() ?? [])],
    privatePaths: () => deps.privatePaths,
    transcriptDir: chatTranscriptDir(deps),
    extraTools: mcp && (() => mcp.tools()),
    subagents: subagents(deps, projectDir),
    // The approver denies at the configured timeout (as a Timeout); the agent's own timer is only a backstop.
    approvalTimeoutMs: config.approvalTimeoutMs() + APPROVAL_BACKSTOP_MS,
    persistAllowRule: (rule) =>
      config.addWorkspaceAllowRule(rule).catch((error: unknown) => {
        const message = `could not save "${rule}" to the workspace settings: ${errorMessage(error)}`;
        deps.log.error(message);
        void showError(`Hookpilot ${message}`);
      }),
    cancellation: engine.builtins.cancellation,
    // The engine's registry (the key, secret-looking variables, .env values): the model and the transcript never see them.
    redactor: engine.audit.redactor,
    passEnv: config.bashPassEnv(),
    secretEnvNames: () => engine.credentialEnvNames(),
    spawnerModulePath: engine.options.spawnerModulePath,
    // An untrusted workspace contributes nothing: not even its AGENTS.md or CLAUDE.md.
    projectInstructions: vscode.workspace.isTrusted,
    // The chat waits for the user's next prompt: Notification idle_prompt, as in Claude Code.
    idlePromptMs: IDLE_PROMPT_MS,
  });
}
