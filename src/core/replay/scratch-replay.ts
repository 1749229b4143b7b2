import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { AgentSession } from '../agent/agent-session';
import type { Approver, PermissionSettings } from '../agent/permissions/permission-settings';
import { auditFilePath } from '../audit/audit-writer';
import { HookEngine, type EngineLogger } from '../engine/hook-engine';
import type { LoadedConfig } from '../hooks/config/loaded-config';
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
  trusted: boolean;
  env: NodeJS.ProcessEnv;
  log: EngineLogger;
  secretValues: readonly string[];
  userSettingsFile?: string;
  spawnerModulePath?: string;
  /** The hook configuration sources, read from the copy (today's configuration of the workspace). */
  configs: (scratchDir: string) => LoadedConfig[];
  /** Today's permission settings; additional directories are not reachable from a replay. */
  permissions: PermissionSettings;
  disallowedTools?: readonly string[];
  maxSteps?: number;
  approver: Approver;
  signal: AbortSignal;
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
  const scratch = await createScratchWorkspace(setup.projectDir, { ...setup.scratch, signal: setup.signal });
  const env = scratchEnvironment(setup.env, scratch.dir);
  const realWorkspace = setup.projectDir + path.sep;
  try {
    const engine = new HookEngine({
      projectDir: scratch.dir,
      storageDir: setup.storageDir,
      trusted: setup.trusted,
      env,
      // The live agent could write these: a program it left on PATH there is no hook's.
      writableRoots: () => [setup.projectDir, ...setup.permissions.additionalDirectories],
      log: setup.log,
      secretValues: setup.secretValues,
      userSettingsFile: setup.userSettingsFile,
      spawnerModulePath: setup.spawnerModulePath,
    });
    let run: Awaited<ReturnType<typeof replayRecording>>;
    try {
      await engine.reload(setup.configs(scratch.dir));
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
            dispatcher: engine.dispatcher,
            approver: setup.approver,
            permissions: () => permissions,
            // The real workspace, whole: the recording's commands are the model's, and the copy is theirs to change.
            protectedPaths: () => [...engine.protectedPaths(), realWorkspace],
            transcriptDir: replayTranscriptDir(setup.storageDir),
            env,
            redactor: engine.audit.redactor,
            disallowedTools: [...(setup.disallowedTools ?? []), ...NOT_REPLAYED_TOOLS],
            spawnerModulePath: setup.spawnerModulePath,
            maxSteps: setup.maxSteps,
            cancellation: engine.builtins.cancellation,
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
