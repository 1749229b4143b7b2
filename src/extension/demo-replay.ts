import { existsSync, lstatSync } from 'node:fs';
import path from 'node:path';
import type { AgentSession } from '../core/agent/agent-session';
import type { Approver } from '../core/agent/permissions/permission-settings';
import { auditFilePath } from '../core/audit/audit-writer';
import { loadWorkspaceConfigs } from '../core/hooks/config/workspace-config-files';
import { describeDifference } from '../core/replay/decisions';
import { DEMO_RECORDING } from '../core/replay/demo-recording';
import { loadReplaySource } from '../core/replay/replay-source';
import { replayInScratchCopy, type ScratchReplayResult } from '../core/replay/scratch-replay';
import type { EngineHost } from './engine-host';
import type { HookpilotConfig } from './hookpilot-config';
import type { HookpilotLog } from './log';

/**
 * The recorded session a workspace ships (the demo workspace does), when it may be replayed:
 * an untrusted workspace contributes nothing, and a configuration change waiting for Apply
 * would be replayed from the disk instead of as applied.
 */
export function demoRecordingOf(engineHost: EngineHost): string | undefined {
  const projectDir = engineHost.projectDir;
  if (!projectDir || !engineHost.trusted) return undefined;
  const file = path.join(projectDir, DEMO_RECORDING);
  // A FIFO, a device or a link there is no recording to offer (loadReplaySource refuses it too).
  try {
    return lstatSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

export interface DemoReplayDeps {
  engineHost: EngineHost;
  config: HookpilotConfig;
  approver: Approver;
  log: HookpilotLog;
  /** Every Hookpilot record the window protects: a replayed command is the model's too. */
  privatePaths: readonly string[];
}

/**
 * Replays the workspace's recorded session as `hookpilot replay` does: its model replies run
 * through the workspace's hooks in a scratch copy (the person's files stay as they are), a
 * hook that asks asks the person, and the replay is a session of its own in the timeline.
 */
export async function replayDemoSession(
  deps: DemoReplayDeps,
  signal: AbortSignal,
  onSession: OnReplaySession,
): Promise<ScratchReplayResult> {
  const file = demoRecordingOf(deps.engineHost);
  if (!file) throw new Error(`This workspace has no recorded session to replay (a trusted workspace with ${DEMO_RECORDING}).`);
  return replayRecordingFile(deps, file, signal, onSession);
}

/** A session of this workspace (its audit log), replayed against today's hooks: the Hook Manager's "Replay against today's hooks". */
export async function replayStoredSession(deps: DemoReplayDeps, sessionId: string, signal: AbortSignal): Promise<ScratchReplayResult> {
  if (!deps.engineHost.trusted) throw new Error("A replay runs the workspace's hooks: trust the workspace first.");
  const file = auditFilePath(path.join(deps.engineHost.engine.options.storageDir, 'audit'), sessionId);
  if (!existsSync(file)) throw new Error(`No audit log for session ${sessionId}.`);
  return replayRecordingFile(deps, file, signal, () => undefined);
}

type OnReplaySession = (session: AgentSession) => void;

async function replayRecordingFile(
  deps: DemoReplayDeps,
  file: string,
  signal: AbortSignal,
  onSession: OnReplaySession,
): Promise<ScratchReplayResult> {
  const { engineHost, config } = deps;
  const projectDir = engineHost.projectDir;
  if (!projectDir) throw new Error('Open a folder first: a replay runs in a copy of the workspace.');
  if (engineHost.pendingChanges.length > 0) {
    throw new Error('Apply or discard the pending hook configuration change first: a replay reads the configuration on disk.');
  }
  // A replay reads the configuration and scripts on disk: only where they are what the window runs.
  const discarded = engineHost.discardedChanges;
  if (discarded.length > 0) {
    throw new Error(
      `${discarded.join(', ')} holds a change that was discarded, which a replay would run from the disk: restore the file as applied, or apply it, first.`,
    );
  }
  const engine = engineHost.engine;
  const changedScript = engine.loadedConfig.hooks.find((hook) => engine.scriptChange(hook.id) !== undefined);
  if (changedScript) {
    throw new Error(
      `The script of hook "${changedScript.name}" changed since it was approved (${engine.scriptChange(changedScript.id)}), and a replay would run it: review and re-approve it in the Hook Manager first.`,
    );
  }
  const { env = process.env, userSettingsFile, spawnerModulePath } = engine.options;
  const result = await replayInScratchCopy({
    source: await loadReplaySource(file),
    projectDir,
    storageDir: engine.options.storageDir,
    storageRoots: deps.privatePaths,
    trusted: true,
    env,
    log: (level, message) => deps.log[level](`[replay] ${message}`),
    secretValues: config.secretValues(),
    userSettingsFile,
    spawnerModulePath,
    configs: (scratchDir) => loadWorkspaceConfigs(scratchDir, { userSettingsFile }),
    permissions: config.permissions(projectDir),
    approver: deps.approver,
    signal,
    onSession: (session) => onSession(session),
  });
  const differ = result.differences.length;
  deps.log.info(`replay ${result.replaySessionId} of ${path.basename(file)}: ${differ} decision(s) differ from the recording`);
  for (const difference of result.differences) deps.log.info(`[replay] ${describeDifference(difference)}`);
  return result;
}
