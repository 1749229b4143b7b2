import path from 'node:path';
import type { AgentEvent } from '../../src/core/agent/agent-events';
import { AgentSession, type AgentSessionOptions } from '../../src/core/agent/agent-session';
import { OpenAIChatModel } from '../../src/core/agent/llm/openai-chat-model';
import type { Approver } from '../../src/core/agent/permissions/permission-settings';
import { denyingApprover } from '../../src/core/agent/permissions/permission-settings';
import { HookEngine } from '../../src/core/engine/hook-engine';
import { loadWorkspaceConfigs } from '../../src/core/hooks/config/workspace-config-files';
import { startModelServer, type ModelScript, type ModelServer } from './model-server';
import { makeWorkspace } from './workspace';

export interface AgentHarness {
  workspace: ReturnType<typeof makeWorkspace>;
  server: ModelServer;
  engine: HookEngine;
  session: AgentSession;
  events: AgentEvent[];
  close(): Promise<void>;
}

/** A real engine from the workspace's hook config, a real openai client and a scripted model. */
export async function startAgent(
  files: Record<string, string>,
  script: ModelScript,
  options: { approver?: Approver; trusted?: boolean; session?: Partial<AgentSessionOptions> } = {},
): Promise<AgentHarness> {
  const workspace = makeWorkspace(files);
  const server = await startModelServer(script);
  const storageDir = path.join(workspace.dir, '.agent-test-storage');
  const engine = new HookEngine({ projectDir: workspace.dir, storageDir, trusted: options.trusted ?? true });
  await engine.reload(loadWorkspaceConfigs(workspace.dir));
  const session = new AgentSession({
    workspaceRoot: workspace.dir,
    model: new OpenAIChatModel({ baseURL: server.url, maxRetries: 0 }),
    modelName: 'scripted-model',
    dispatcher: engine.dispatcher,
    approver: options.approver ?? denyingApprover,
    permissions: () => ({ mode: 'default', allow: [], deny: [], ask: [], additionalDirectories: [] }),
    protectedPaths: () => engine.protectedPaths(),
    transcriptDir: path.join(storageDir, 'transcripts'),
    cancellation: engine.builtins.cancellation,
    audit: engine.auditSink,
    ...options.session,
  });
  const events: AgentEvent[] = [];
  session.onEvent((e) => events.push(e));
  await session.start('startup');
  return {
    workspace,
    server,
    engine,
    session,
    events,
    close: async () => {
      await session.end();
      await engine.dispose();
      await server.close().catch(() => undefined);
      workspace.cleanup();
    },
  };
}

/** The tool message the model was sent for a call, from the next request the server saw. */
export function toolMessageSent(server: ModelServer, callId: string): string | undefined {
  for (const req of server.requests) {
    const msg = (req.body.messages as Array<{ role: string; tool_call_id?: string; content?: unknown }>).find(
      (m) => m.role === 'tool' && m.tool_call_id === callId,
    );
    if (msg) return String(msg.content);
  }
  return undefined;
}
