import { existsSync, lstatSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { AgentSession } from '../core/agent/agent-session';
import { Transcript } from '../core/agent/transcript';
import { isValidSessionId } from '../core/session-id';
import type { ChatModel } from '../core/agent/llm/chat-model';
import { OpenAIChatModel } from '../core/agent/llm/openai-chat-model';
import { RedactingChatModel } from '../core/agent/llm/redacting-chat-model';
import { ModelHookJudge } from '../core/agent/model-hook-judge';
import type { SubagentDefinition } from '../core/agent/subagent-definitions';
import type { Tool } from '../core/agent/tools/tool';
import type { Approver, PermissionSettings } from '../core/agent/permissions/permission-settings';
import { engineSessionGuards } from '../core/engine/engine-session-guards';
import { HookEngine, type EngineLogger } from '../core/engine/hook-engine';
import { claudeSettingsFiles } from '../core/hooks/config/claude-settings';
import { managedPolicyFile } from '../core/hooks/config/managed-policy';
import type { LoadedConfig } from '../core/hooks/config/loaded-config';
import { HOOKS_JSON, loadWorkspaceConfigs, WORKSPACE_SETTINGS } from '../core/hooks/config/workspace-config-files';
import { WORKSPACE_MCP_FILES } from '../core/mcp/mcp-protected-files';
import { usageError } from './cli-error';
import { projectStorageDir, userSettingsFile, type ModelEndpoint } from './cli-environment';
import { storageRoot } from '../core/storage-root';
import type { ConfigFileSnapshot } from './config-snapshot';
import { persistAllowRule } from './persist-allow-rule';
import { TelemetryHookEngine } from './telemetry-setup';
import { errorMessage } from '../core/error-message';
import { collectorKeys } from '../core/telemetry/otlp-config';

export interface EngineSetup {
  projectDir: string;
  env: NodeJS.ProcessEnv;
  /** `--hooks FILE`: extra hooks.json-format files, loaded after the workspace's. */
  extraHooksFiles?: readonly string[];
  /** Values never written to the audit log (the API key). */
  secretValues?: readonly string[];
  log: EngineLogger;
  /** false for read-only commands: load the configuration, start no process. */
  startProcesses?: boolean;
  /** The permissions' additional directories, which the agent may write like the workspace. */
  writableRoots?: readonly string[];
}

/** Next to the CLI in the bundle (dist/); absent when the CLI runs from source. */
const BUNDLED_SPAWNER = path.join(__dirname, 'process-spawner.js');

/**
 * The CLI's one composition root. The CLI is a trusted context, like `claude -p`: the
 * workspace's hooks run. Hooks come from the user's settings, the workspace's
 * .vscode/settings.json and .vscode/hooks.json, then `--hooks` files.
 */
export async function createEngine(setup: EngineSetup): Promise<HookEngine> {
  const extraFiles = (setup.extraHooksFiles ?? []).map((file) => path.resolve(file));
  for (const file of extraFiles) if (!existsSync(file)) throw usageError(`--hooks: no such file ${file}`);
  const engine = new TelemetryHookEngine({
    projectDir: setup.projectDir,
    storageDir: projectStorageDir(storageRoot(setup.env), setup.projectDir),
    trusted: true,
    env: setup.env,
    home: homeOf(setup.env),
    writableRoots: () => setup.writableRoots ?? [],
    log: setup.log,
    // Registered by Telemetry.start too, but a read-only command's engine starts none, and its hooks may print them.
    secretValues: [...(setup.secretValues ?? []), ...collectorKeys(setup.env, userSettingsFile(setup.env))],
    startProcesses: setup.startProcesses,
    userSettingsFile: userSettingsFile(setup.env),
    // A fork costs in proportion to the forking process's memory, which grows with a long
    // session: hooks and the Bash tool fork from the small spawner helpers of the bundle.
    spawnerModulePath: existsSync(BUNDLED_SPAWNER) ? BUNDLED_SPAWNER : undefined,
  });
  // OpenTelemetry export (off unless the user configured it), for runs only, not read-only commands.
  if (setup.startProcesses !== false) engine.startTelemetry(setup.env, userSettingsFile(setup.env), setup.log);
  await engine.reload(workspaceConfigs(setup.projectDir, setup.env, extraFiles));
  return engine;
}

/** The hook configuration of a workspace folder as the CLI reads it (`replay` reads its copy's with it too). */
export function workspaceConfigs(projectDir: string, env: NodeJS.ProcessEnv, extraFiles: readonly string[]): LoadedConfig[] {
  return loadWorkspaceConfigs(projectDir, { userSettingsFile: userSettingsFile(env), extraFiles, home: homeOf(env) });
}

/** Every file hooks, permissions and MCP servers are read from, once, when a run starts. */
export function configFiles(projectDir: string, env: NodeJS.ProcessEnv, extraHooksFiles: readonly string[] = []): string[] {
  const claude = claudeSettingsFiles(projectDir, homeOf(env)).map((source) => source.file);
  return [
    userSettingsFile(env),
    path.join(projectDir, WORKSPACE_SETTINGS),
    path.join(projectDir, HOOKS_JSON),
    ...extraHooksFiles.map((file) => path.resolve(file)),
    ...claude,
    // A server planted there starts in the next session: a person must hear of it now.
    ...WORKSPACE_MCP_FILES.map((file) => path.join(projectDir, file)),
    managedPolicyFile(),
  ];
}

/** The run's HOME: where `~/.claude/settings.json` is and a permission rule's `~/` starts. */
function homeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
}

export interface SessionSetup {
  endpoint: ModelEndpoint;
  permissions: PermissionSettings;
  approver: Approver;
  /** Tool names the model is not offered at all. */
  disallowedTools: readonly string[];
  maxSteps?: number;
  maxRetries?: number;
  env: NodeJS.ProcessEnv;
  /** `--pass-env`: secret-looking variables the Bash tool still inherits. */
  passEnv?: readonly string[];
  /** "Always allow" could not be saved: the run goes on, the person is told. */
  onPersistError: (message: string) => void;
  /** Continue this earlier session (its transcript is loaded by `start('resume')`). */
  sessionId?: string;
  /** The configuration files as the run read them; "Always allow" writes one of them. */
  configSnapshot: ConfigFileSnapshot;
  /** The MCP servers' tools, asked for before each model request (a server's list may change). */
  extraTools?: () => readonly Tool[];
  /** Custom subagents from `.claude/agents/`. */
  subagents?: readonly SubagentDefinition[];
  /** More files only a person may let the agent change (the MCP configuration and server scripts). */
  extraProtectedPaths?: readonly string[];
}

/** The earlier session `--resume ID` or `--continue` names, checked against this workspace's transcripts. */
export function sessionToResume(
  projectDir: string,
  env: NodeJS.ProcessEnv,
  request: { resume?: string; continue?: boolean },
): string | undefined {
  const dir = path.join(projectStorageDir(storageRoot(env), projectDir), 'transcripts');
  if (request.resume !== undefined) {
    if (!isValidSessionId(request.resume)) throw usageError(`--resume: no session ${JSON.stringify(request.resume)} in this workspace`);
    // As --continue: only a regular file is a transcript (a link would be someone else's file, a FIFO never ends).
    const info = lstatSync(Transcript.pathFor(dir, request.resume), { throwIfNoEntry: false });
    if (!info) throw usageError(`--resume: no session ${JSON.stringify(request.resume)} in this workspace`);
    if (!info.isFile())
      throw usageError(`--resume: the transcript of session ${request.resume} is not a regular file (a link, a FIFO or a folder)`);
    return request.resume;
  }
  if (!request.continue) return undefined;
  const latest = Transcript.latestSessionId(dir);
  if (!latest) throw usageError('--continue: no earlier session in this workspace');
  return latest;
}

/** prompt and agent hooks ask the run's model, behind the same secret boundary as the agent. */
export function useModelForHooks(
  engine: HookEngine,
  model: ChatModel,
  modelName: string,
  permissions: PermissionSettings,
  env: NodeJS.ProcessEnv,
): void {
  engine.useJudge(
    new ModelHookJudge({
      model: new RedactingChatModel(model, engine.audit.redactor),
      modelName: () => modelName,
      workspaceRoot: () => engine.options.projectDir,
      permissions: () => permissions,
      home: homeOf(env),
      protectedPaths: () => engine.protectedPaths(),
      privatePaths: () => [storageRoot(env) + path.sep],
      redactForModel: (text) => engine.audit.redactor.redactForModel(text),
      env,
    }),
  );
}

export function createSession(engine: HookEngine, setup: SessionSetup): AgentSession {
  const projectDir = engine.options.projectDir;
  const model = new OpenAIChatModel({
    baseURL: setup.endpoint.baseURL,
    apiKey: setup.endpoint.apiKey,
    maxRetries: setup.maxRetries,
    warn: (message) => engine.options.log?.('warn', message),
  });
  useModelForHooks(engine, model, setup.endpoint.model, setup.permissions, setup.env);
  return new AgentSession({
    sessionId: setup.sessionId,
    workspaceRoot: projectDir,
    home: homeOf(setup.env),
    model,
    modelName: setup.endpoint.model,
    ...engineSessionGuards(engine, { storageRoots: [storageRoot(setup.env)], extraProtectedPaths: setup.extraProtectedPaths }),
    approver: setup.approver,
    permissions: () => setup.permissions,
    transcriptDir: path.join(engine.options.storageDir, 'transcripts'),
    env: setup.env,
    passEnv: setup.passEnv,
    disallowedTools: setup.disallowedTools,
    extraTools: setup.extraTools,
    subagents: setup.subagents,
    maxSteps: setup.maxSteps,
    persistAllowRule: (rule) =>
      setup.configSnapshot
        .ownWrite(path.join(projectDir, WORKSPACE_SETTINGS), () => persistAllowRule(projectDir, rule))
        .catch((error: unknown) => setup.onPersistError(`could not save "${rule}" to .vscode/settings.json: ${errorMessage(error)}`)),
  });
}
