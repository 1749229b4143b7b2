import { isBuiltinToolName, type BuiltinToolName } from '../core/agent/tools/tool-catalog';
import type { HookEventName } from '../core/hooks/events';

/** Where the sample pretends to run; the host can pass the real workspace and session. */
export interface SampleContext {
  sessionId?: string;
  cwd?: string;
  transcriptPath?: string;
}

export type SamplePayload = { hook_event_name: HookEventName; session_id: string; transcript_path: string; cwd: string } & Record<
  string,
  unknown
>;

const DEFAULT_CWD = '/home/user/project';

export interface ToolSample {
  input: Record<string, unknown>;
  response: unknown;
}

/** A sample call of each of Hookpilot's tools, Claude-shaped, touching `file`. */
export const TOOL_SAMPLES: { readonly [N in BuiltinToolName]: (file: string) => ToolSample } = {
  Bash: () => ({
    input: { command: 'npm test', description: 'Run the test suite' },
    response: { stdout: 'All tests passed\n', stderr: '', interrupted: false, isImage: false },
  }),
  Read: (file) => ({
    input: { file_path: file },
    response: { type: 'text', file: { filePath: file, content: 'export {};\n', numLines: 1, startLine: 1, totalLines: 1 } },
  }),
  Write: (file) => ({
    input: { file_path: file, content: 'export const answer = 42;\n' },
    response: { type: 'create', filePath: file, content: 'export const answer = 42;\n', originalFile: null, structuredPatch: [] },
  }),
  Edit: (file) => ({
    input: { file_path: file, old_string: 'answer = 41', new_string: 'answer = 42' },
    response: {
      filePath: file,
      oldString: 'answer = 41',
      newString: 'answer = 42',
      originalFile: 'export const answer = 41;\n',
      replaceAll: false,
      structuredPatch: [],
      userModified: false,
    },
  }),
  Glob: (file) => ({ input: { pattern: '**/*.ts' }, response: { filenames: [file], numFiles: 1, truncated: false, durationMs: 3 } }),
  Grep: (file) => ({
    input: { pattern: 'TODO', output_mode: 'files_with_matches' },
    response: { mode: 'files_with_matches', numFiles: 1, filenames: [file] },
  }),
  TodoWrite: () => {
    const todos = [{ content: 'Run the tests', status: 'in_progress', activeForm: 'Running the tests' }];
    return { input: { todos }, response: { oldTodos: [], newTodos: todos } };
  },
  Task: () => ({
    input: {
      description: 'Find the config loader',
      prompt: 'Find where the hooks config is loaded and summarize it.',
      subagent_type: 'general-purpose',
    },
    response: { content: 'The loader is in src/config.ts.' },
  }),
};

/** The sample call of a tool; an empty one for a tool Hookpilot does not have (an MCP tool's). */
export function toolSample(toolName: string, cwd: string): ToolSample {
  return isBuiltinToolName(toolName) ? TOOL_SAMPLES[toolName](`${cwd}/src/index.ts`) : { input: {}, response: {} };
}

const PLAIN_TOOL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The tool a sample should use for a hook's matcher: the first alternative when it names
 * a tool ("Edit|Write" gives Edit); undefined for "*", "" or a regular expression.
 */
export function toolNameFromMatcher(matcher: string | undefined): string | undefined {
  const first = matcher?.split('|')[0]?.trim();
  return first && PLAIN_TOOL_NAME.test(first) ? first : undefined;
}

/**
 * A realistic payload for `event`, in Claude Code's snake_case shape, for the Hook
 * Manager's test-fire editor. Tool events use `toolName` (default Bash).
 */
export function samplePayload(event: HookEventName, toolName = 'Bash', context: SampleContext = {}): SamplePayload {
  const cwd = context.cwd ?? DEFAULT_CWD;
  const base = {
    hook_event_name: event,
    session_id: context.sessionId ?? 'test-session',
    // A test fire has no transcript: a path in the workspace would be one a cloned repository can fill.
    transcript_path: context.transcriptPath ?? '',
    cwd,
    permission_mode: 'default',
  };
  const tool = toolSample(toolName, cwd);
  const toolFields = { tool_name: toolName, tool_input: tool.input, tool_use_id: 'toolu_test_01' };
  switch (event) {
    case 'SessionStart':
      return { ...base, source: 'startup', model: 'gpt-4.1' };
    case 'UserPromptSubmit':
      return { ...base, prompt: 'Add a unit test for the parser' };
    case 'TurnStart':
      return { ...base, turn_index: 0, prompt: 'Add a unit test for the parser' };
    case 'SystemPrompt':
      return { ...base, system_prompt: 'You are Hookpilot, a coding agent working in this workspace.' };
    case 'BeforeLLM':
      return {
        ...base,
        step: 0,
        llm_request: { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Add a unit test for the parser' }] },
      };
    case 'AfterLLM':
      return { ...base, step: 0, llm_response: { content: 'I will read the parser first.', tool_calls: [], finish_reason: 'stop' } };
    case 'PreToolUse':
      return { ...base, ...toolFields };
    case 'PermissionRequest':
      return {
        ...base,
        ...toolFields,
        current_decision: 'ask',
        decision_reason: `${toolName} needs approval in default mode`,
        is_subagent: false,
        permission_suggestions: [`${toolName}`],
      };
    case 'PermissionDenied':
      return { ...base, ...toolFields, reason: 'denied by rule', source: 'Rule' };
    case 'PostToolUse':
      return { ...base, ...toolFields, tool_response: tool.response, duration_ms: 120 };
    case 'PostToolUseFailure':
      return { ...base, ...toolFields, error: `${toolName} failed: exit code 1`, is_interrupt: false, duration_ms: 120 };
    case 'ToolSkipped':
      return { ...base, ...toolFields, reason: 'hook "budget" stopped the turn before this call ran' };
    case 'StepComplete':
      return { ...base, step: 1, max_steps: 50, messages_count: 6, estimated_tokens: 4200, token_limit: 100000, tool_calls: 1 };
    case 'InstructionsLoaded':
      return { ...base, file_path: `${base.cwd}/AGENTS.md`, memory_type: 'Project', load_reason: 'session_start' };
    case 'PostToolBatch':
      return {
        ...base,
        step: 1,
        tool_calls: [{ tool_name: toolName, tool_input: tool.input, tool_use_id: 'toolu_test_01', tool_response: 'ok' }],
      };
    case 'StopFailure':
      return { ...base, error: 'rate_limit', error_details: '429 Too Many Requests', last_assistant_message: '429 Too Many Requests' };
    case 'Stop':
      return { ...base, stop_hook_active: false, stop_hook_count: 0, last_assistant_message: 'The tests pass now.' };
    case 'SteeringInjected':
      return { ...base, prompt: 'Use vitest, not jest', turn_index: 0, step: 2 };
    case 'InterruptReceived':
      return { ...base, turn_index: 0 };
    case 'FollowUpQueued':
      return { ...base, prompt: 'Then update the changelog', turn_index: 0, messages: 1 };
    case 'TurnEnd':
      return { ...base, turn_index: 0, reason: 'completed', steps: 3, tool_calls: 2, last_assistant_message: 'The tests pass now.' };
    case 'SubagentStart':
      return { ...base, agent_id: 'agent_test_01', agent_type: 'general-purpose', prompt: 'Find where the hooks config is loaded.' };
    case 'SubagentStop':
      return {
        ...base,
        agent_id: 'agent_test_01',
        agent_type: 'general-purpose',
        stop_hook_active: false,
        last_assistant_message: 'The loader is in src/config.ts.',
      };
    case 'PreCompact':
      return { ...base, trigger: 'auto', custom_instructions: null, message_count: 40, estimated_tokens: 98000 };
    case 'PostCompact':
      return { ...base, trigger: 'auto', compact_summary: 'The user asked for a parser test; the agent added one.', new_message_count: 4 };
    case 'Notification':
      return {
        ...base,
        message: 'Hookpilot needs your permission to use Bash',
        title: 'Permission needed',
        notification_type: 'permission_prompt',
      };
    case 'Elicitation':
      return {
        ...base,
        mcp_server_name: 'deploy',
        message: 'Which environment should the release go to?',
        mode: 'form',
        requested_schema: { type: 'object', properties: { environment: { type: 'string', enum: ['staging', 'production'] } } },
      };
    case 'ElicitationResult':
      return { ...base, mcp_server_name: 'deploy', action: 'accept', mode: 'form', content: { environment: 'staging' } };
    case 'Error':
      return { ...base, error_type: 'tool', error: 'Bash failed: exit code 1', recoverable: true };
    case 'ConfigChange':
      return { ...base, source: 'project_settings', file_path: `${cwd}/.vscode/hooks.json`, new_content: '{\n  "hooks": {}\n}\n' };
    case 'FileChanged':
      return { ...base, file_path: `${cwd}/.envrc`, file_name: '.envrc', event: 'change' };
    case 'SessionEnd':
      return { ...base, reason: 'other' };
  }
}
