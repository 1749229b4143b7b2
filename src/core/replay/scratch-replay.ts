import { randomUUID } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { AgentSession } from '../agent/agent-session';
import type { Approver, PermissionSettings } from '../agent/permissions/permission-settings';
import { auditFilePath } from '../audit/audit-writer';
import { engineSessionGuards } from '../engine/engine-session-guards';
import { HookEngine, type EngineLogger } from '../engine/hook-engine';
import type { LoadedConfig } from '../hooks/config/loaded-config';
import type { HookDefinition } from '../hooks/types';
import { collectorKeys } from '../telemetry/otlp-config';
import type { DecisionDifference } from './decisions';
import { compareReplay, replayTranscriptDir, type ReplaySource } from './replay-source';
import { createScratchWorkspace, type ScratchWorkspaceOptions } from './scratch-workspace';
import { NOT_REPLAYED_TOOLS, replayRecording, type ReplayedTurn } from './session-replayer';
import { REPLAY_SESSION_PREFIX } from '../audit/session-kinds';

export interface ScratchReplaySetup {
  source: ReplaySource;
  /** The real workspace: copied, never touched. */
  projectDir: string;
  /** The workspace's storage: the replay's audit log and transcript are kept beside the recorded ones. */
  storageDir: string;
  /** Hookpilot's storage folders, every session's records, out of the replayed commands' reach (default: storageDir). */
  storageRoots?: readonly string[];
  trusted: boolean;
  env: NodeJS.ProcessEnv;
  log: EngineLogger;
  secretValues: readonly string[];
  userSettingsFile?: string;
  spawnerModulePath?: string;
  /**
   * The hook configuration sources of a workspace folder: read from the copy (today's
   * configuration of the workspace), and from the workspace to check the copy loads the same hooks.
   */
  configs: (workspaceDir: string) => LoadedConfig[];
  /** Today's permission settings; additional directories are not reachable from a replay. */
  permissions: PermissionSettings;
  disallowedTools?: readonly string[];
  maxSteps?: number;
  approver: Approver;
  signal: AbortSignal;
  /** The host redacts what it prints with the replay's secrets (the copy's .env values too). */
  onEngine?: (engine: HookEngine) => void;
  /** The host follows the replay (the chat draws it, the timeline lists it). */
  onSession?: (session: AgentSession, engine: HookEngine) => void;
  scratch?: ScratchWorkspaceOptions;
}

export interface ScratchReplayResult {
  replaySessionId: string;
  auditLog: string;
  turns: ReplayedTurn[];
  differences: DecisionDifference[];
  /** What the copy left out. */
  skipped: string[];
  cancelled: boolean;
}

/** The replay would not run the hooks the workspace runs: it does not start. */
export class ReplayRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReplayRefusedError';
  }
}

/** A guard configured in a file that cannot be read would not run: as `run`, no replay without it. */
function refuseUnreadable(configs: readonly LoadedConfig[]): void {
  const unreadable = configs.flatMap((config) => config.problems).find((problem) => problem.code === 'unreadable');
  if (unreadable) throw new ReplayRefusedError(`${unreadable.message}; fix or remove it (the hooks configured there would not run)`);
}

/** A hook as it runs, whichever folder its file was read from. */
function hookSignature(hook: HookDefinition, workspaceDirs: readonly string[]): string {
  const inWorkspace = (text: string) => workspaceDirs.reduce((result, dir) => result.split(dir).join('<workspace>'), text);
  const { kind, path: at } = hook.source;
  return JSON.stringify({ ...hook, id: undefined, source: { kind, path: at } }, (_key, value: unknown) =>
    typeof value === 'string' ? inWorkspace(value) : value,
  );
}

/**
 * A hook configuration the copy cannot reach (a link into `.git`, a file left out) would leave
 * its guards out of the replay, and the commands they blocked would run again.
 */
function refuseMissingHooks(
  workspace: readonly LoadedConfig[],
  workspaceDirs: string[],
  copy: readonly LoadedConfig[],
  copyDir: string,
): void {
  const expected = workspace.flatMap((config) => config.hooks);
  const loaded = copy.flatMap((config) => config.hooks).map((hook) => hookSignature(hook, [copyDir]));
  const sorted = (signatures: string[]) => [...signatures].sort().join('\n');
  if (sorted(expected.map((hook) => hookSignature(hook, workspaceDirs))) === sorted(loaded)) return;
  const missing = expected
    .filter((hook) => !loaded.includes(hookSignature(hook, workspaceDirs)))
    .map((hook) => `"${hook.name}" (${hook.event})`);
  throw new ReplayRefusedError(
    `the copy of the workspace does not load the hooks the workspace loads${missing.length > 0 ? `, ${missing.join(', ')} among them` : ''}: ` +
      "their configuration is out of the copy's reach (a link into .git or a file not copied), and the replay would run without them",
  );
}

/**
 * A replay starts no MCP server, so its mcp_tool hooks fail: a guard among them blocks, where
 * its default (a non-blocking error) would let through what it blocked in the recorded session.
 */
function mcpToolHooksFailClosed(configs: readonly LoadedConfig[]): LoadedConfig[] {
  return configs.map((config) => ({
    ...config,
    hooks: config.hooks.map((hook) => (hook.spec.type === 'mcp_tool' ? { ...hook, onFailure: 'block' as const } : hook)),
  }));
}

/** Variables that point git at a repository whatever the working folder: the real one, here. */
const GIT_LOCATION_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
];

/**
 * The environment of the replay's hooks and tools: git run in the copy finds no repository
 * outside it. The copy has no `.git`, and the ceiling stops git's walk up at the copy's parent
 * (a temp folder may itself lie inside a repository, and the parent holds the sibling links).
 */
function scratchEnvironment(env: NodeJS.ProcessEnv, scratchDir: string): NodeJS.ProcessEnv {
  const scoped: NodeJS.ProcessEnv = { ...env, GIT_CEILING_DIRECTORIES: path.dirname(scratchDir) };
  for (const name of GIT_LOCATION_VARIABLES) delete scoped[name];
  return scoped;
}

/**
 * Replays a recording in a scratch copy of the workspace with its own hook engine (the copy's
 * hooks), then compares the decisions with the recorded ones. MCP servers are not started
 * (their configuration may name the real workspace) and additional directories are not
 * reachable: a replay touches nothing but its copy. Asks go to the host's approver.
 */
export async function replayInScratchCopy(setup: ScratchReplaySetup): Promise<ScratchReplayResult> {
  const workspaceConfigs = setup.configs(setup.projectDir);
  refuseUnreadable(workspaceConfigs);
  const scratch = await createScratchWorkspace(setup.projectDir, { ...setup.scratch, signal: setup.signal });
  const env = scratchEnvironment(setup.env, scratch.dir);
  const realWorkspace = setup.projectDir + path.sep;
  try {
    const configs = setup.configs(scratch.dir);
    refuseUnreadable(configs);
    refuseMissingHooks(workspaceConfigs, [await realpath(setup.projectDir), setup.projectDir], configs, scratch.dir);
    const engine = new HookEngine({
      projectDir: scratch.dir,
      storageDir: setup.storageDir,
      trusted: setup.trusted,
      env,
      // The live agent could write these: a program it left on PATH there is no hook's.
      writableRoots: () => [setup.projectDir, ...setup.permissions.additionalDirectories],
      log: setup.log,
      secretValues: [...setup.secretValues, ...collectorKeys(setup.env, setup.userSettingsFile)],
      userSettingsFile: setup.userSettingsFile,
      spawnerModulePath: setup.spawnerModulePath,
    });
    setup.onEngine?.(engine);
    let run: Awaited<ReturnType<typeof replayRecording>>;
    try {
      await engine.reload(mcpToolHooksFailClosed(configs));
      const permissions = { ...setup.permissions, additionalDirectories: [] };
      run = await replayRecording(
        setup.source.recording,
        scratch.dir,
        (model) => {
          const session = new AgentSession({
            sessionId: `${REPLAY_SESSION_PREFIX}${randomUUID()}`,
            workspaceRoot: scratch.dir,
            model,
            modelName: 'replay',
            ...engineSessionGuards(engine, {
              storageRoots: setup.storageRoots ?? [setup.storageDir],
              // The real workspace, whole: the recording's commands are the model's, and the copy is theirs to change.
              extraProtectedPaths: [realWorkspace],
            }),
            approver: setup.approver,
            permissions: () => permissions,
            transcriptDir: replayTranscriptDir(setup.storageDir),
            env,
            disallowedTools: [...(setup.disallowedTools ?? []), ...NOT_REPLAYED_TOOLS],
            maxSteps: setup.maxSteps,
            projectInstructions: setup.trusted,
            // A compaction's summary request was never recorded: a replay does not compact.
            contextBudgetTokens: Number.MAX_SAFE_INTEGER,
            // "Always allow" in a replay would change the copy's settings only: nothing to keep.
            persistAllowRule: async () => undefined,
          });
          setup.onSession?.(session, engine);
          return session;
        },
        setup.signal,
      );
    } finally {
      await engine.dispose();
    }
    const differences = await compareReplay(setup.source, setup.storageDir, run.sessionId, scratch.dir);
    return {
      replaySessionId: run.sessionId,
      auditLog: auditFilePath(path.join(setup.storageDir, 'audit'), run.sessionId),
      turns: run.turns,
      differences,
      skipped: scratch.skipped,
      cancelled: run.cancelled,
    };
  } finally {
    await scratch.dispose();
  }
}
