import { homedir } from 'node:os';
import type { HookJudge, JudgeAnswer, JudgeRequest } from '../hooks/handlers/model-hook-handler';
import type { ChatMessage, ChatModel, ToolCallRequest } from './llm/chat-model';
import { tokenUsageSchema } from './llm/token-usage';
import { PermissionGate } from './permissions/permission-gate';
import { physicalOrSelf } from './permissions/protected-targets';
import type { PermissionSettings } from './permissions/permission-settings';
import { createGlobTool } from './tools/glob-tool';
import { createGrepTool } from './tools/grep-tool';
import { createReadTool } from './tools/read-tool';
import { errorMessage } from '../error-message';
import { toolFunctionDefinition, type Tool } from './tools/tool';

/** Claude Code's limit on an agent hook's turns. */
export const AGENT_HOOK_MAX_TURNS = 50;

export interface ModelHookJudgeOptions {
  /** The host's model, already behind the secret boundary (RedactingChatModel). */
  model: ChatModel;
  /** The configured model name, for hooks without their own `model`; read at each run (settings change). */
  modelName: () => string | undefined;
  /** The workspace the tools of an agent hook are confined to; undefined: no folder open. */
  workspaceRoot: () => string | undefined;
  permissions: () => PermissionSettings;
  /** Where a permission rule's `~/` starts; default: this process's home folder (os.homedir()). */
  home?: string;
  protectedPaths: () => readonly string[];
  /** Hookpilot's storage folders: an agent hook's tools neither read nor list them, as the agent's do not. */
  privatePaths?: () => readonly string[];
  /** What the model may see of a text: Grep matches against it, so a count reveals nothing hidden. */
  redactForModel?: (text: string) => string;
  env: NodeJS.ProcessEnv;
}

/**
 * The host's model as prompt and agent hooks use it. An agent hook investigates with Read,
 * Grep and Glob only, each call through the permission gate like the agent's own: the
 * workspace boundary and deny rules hold, and anything short of an allow is refused, since
 * no person is there to ask.
 */
export class ModelHookJudge implements HookJudge {
  private readonly tools: ReadonlyMap<string, Tool>;
  private readonly gate: PermissionGate;

  constructor(private readonly options: ModelHookJudgeOptions) {
    const tools = [createReadTool(), createGrepTool(), createGlobTool()] as unknown as Tool[];
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
    this.gate = new PermissionGate(options.permissions);
  }

  async evaluate(request: JudgeRequest): Promise<JudgeAnswer> {
    const model = request.model ?? this.options.modelName();
    if (!model) throw new Error('no model name is configured');
    const workspaceRoot = this.options.workspaceRoot();
    if (request.investigate && !workspaceRoot) throw new Error('an agent hook needs an open workspace folder');
    const usage = { prompt: 0, completion: 0, total: 0 };
    const messages: ChatMessage[] = [
      { role: 'system', content: request.system },
      { role: 'user', content: request.user },
    ];
    const tools = request.investigate ? [...this.tools.values()].map(toolFunctionDefinition) : undefined;
    for (let turn = 0; turn < AGENT_HOOK_MAX_TURNS; turn++) {
      const response = await this.options.model.complete({ model, messages, tools, temperature: 0 }, { signal: request.signal });
      // Any ChatModel may answer: only counts are summed into the hook_run record, which the audit schema checks.
      const counted = tokenUsageSchema.safeParse(response.usage);
      if (counted.success) {
        usage.prompt += counted.data.promptTokens;
        usage.completion += counted.data.completionTokens;
        usage.total += counted.data.totalTokens;
      }
      if (!request.investigate || response.toolCalls.length === 0) return { text: response.content, model, usage };
      messages.push({
        role: 'assistant',
        content: response.content || null,
        tool_calls: response.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.argumentsText },
        })),
      });
      for (const call of response.toolCalls) {
        messages.push({ role: 'tool', tool_call_id: call.id, content: await this.runTool(call, workspaceRoot ?? '', request.signal) });
      }
    }
    throw new Error(`the agent hook gave no answer within ${AGENT_HOOK_MAX_TURNS} turns`);
  }

  private async runTool(call: ToolCallRequest, workspaceRoot: string, signal: AbortSignal): Promise<string> {
    const tool = this.tools.get(call.name);
    if (!tool) return `Error: an agent hook may use only ${[...this.tools.keys()].join(', ')}`;
    if (!call.arguments) return `Error: ${call.argumentsError ?? 'arguments are not a JSON object'}`;
    const parsed = tool.inputSchema.safeParse(call.arguments);
    if (!parsed.success) return `Error: invalid input for ${call.name}: ${parsed.error.message}`;
    const { env } = this.options;
    const input = tool.normalizeInput ? tool.normalizeInput(parsed.data, { cwd: workspaceRoot }) : parsed.data;
    const settings = this.options.permissions();
    const privatePaths = this.options.privatePaths?.() ?? [];
    const verdict = this.gate.evaluate(tool, input, undefined, {
      workspaceRoot,
      cwd: workspaceRoot,
      home: this.options.home ?? homedir(),
      protectedPaths: [...this.options.protectedPaths(), ...privatePaths],
      privatePaths,
    });
    if (verdict.verdict !== 'allow') return `Error: not permitted (${verdict.source}): ${verdict.reason}`;
    try {
      const ctx = {
        workspaceRoot,
        cwd: workspaceRoot,
        signal,
        env,
        sessionId: 'hook',
        additionalDirectories: settings.additionalDirectories,
        redactForModel: this.options.redactForModel,
        hiddenFolders: privatePaths.map((folder) => physicalOrSelf(folder)),
      };
      const result = await tool.run(input, ctx);
      return result.ok ? result.content : `Error: ${result.error}`;
    } catch (error) {
      return `Error: ${errorMessage(error)}`;
    }
  }
}
