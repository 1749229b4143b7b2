import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Command } from 'commander';
import { z } from 'zod';
import { OpenAIChatModel } from '../../core/agent/llm/openai-chat-model';
import type { PermissionSettings } from '../../core/agent/permissions/permission-settings';
import { EVENT_KEYS } from '../../core/hooks/config/config-schema';
import { suggestName } from '../../core/hooks/config/suggest-name';
import type { DispatchResult } from '../../core/hooks/dispatch-result';
import type { HookRunEvent } from '../../core/hooks/dispatcher';
import { EVENT_INFO, HOOK_EVENTS, resolveEventName } from '../../core/hooks/events';
import type { HookPayload } from '../../core/hooks/types';
import { samplePayload } from '../../shared/sample-payload';
import { projectDirOf, stderrLogger, type CliContext } from '../cli-context';
import { EXIT, usageError } from '../cli-error';
import { cliSecretValues, resolveModelEndpoint, userSettingsFile } from '../cli-environment';
import { createEngine, useModelForHooks } from '../composition';
import { loadPermissions } from '../workspace-permissions';
import { formatSource, SettingsPositions } from '../config-positions';
import { readJsonObject } from '../read-input';
import { collect } from './hooks';
import { describeMergedResult, describeRun, runToJson } from './hooks-test-report';
import { HOOKS_TEST_SESSION_PREFIX } from '../../core/audit/session-kinds';

const testOptionsSchema = z.object({
  tool: z.string().optional(),
  input: z.string().optional(),
  cwd: z.string().optional(),
  hooks: z.array(z.string()).default([]),
  json: z.boolean().default(false),
  baseUrl: z.string().optional(),
  model: z.string().optional(),
});

export function registerHooksTestCommand(hooks: Command, ctx: CliContext): void {
  hooks
    .command('test')
    .description('run every hook that matches EVENT on a sample payload, and show what each decided')
    .argument('<event>', 'event name or alias, e.g. PreToolUse, before_tool, UserPromptSubmit')
    .option('--tool <name>', 'tool_name for tool events (default Bash)')
    .option('--input <json>', 'tool_input for tool events, other payload fields otherwise: JSON, or @file')
    .option('--cwd <dir>', 'the workspace (default: the current directory)')
    .option('--hooks <file>', 'an extra hooks.json-format file (repeatable)', collect)
    .option('--json', 'print JSON')
    .option('--base-url <url>', 'OpenAI-compatible endpoint for prompt and agent hooks (default: $HOOKPILOT_BASE_URL)')
    .option('--model <name>', 'model name for prompt and agent hooks (default: $HOOKPILOT_MODEL)')
    .action(async (eventName: string, raw: unknown) => {
      const options = testOptionsSchema.parse(raw);
      const event = resolveEventName(eventName);
      if (!event) {
        const suggestion = suggestName(eventName, EVENT_KEYS);
        throw usageError(
          `unknown event "${eventName}"; ${suggestion ? `did you mean "${suggestion}"?` : `events: ${HOOK_EVENTS.join(', ')}`}`,
        );
      }
      const toolEvent = EVENT_INFO[event].toolEvent;
      if (options.tool && !toolEvent) throw usageError(`--tool applies to tool events only, not to ${event}`);
      const projectDir = projectDirOf(ctx, options.cwd);
      const input = options.input === undefined ? undefined : await readJsonObject(options.input, '--input');

      // Only the rpc servers this event can reach are started, below.
      // prompt and agent hooks need a model; without an endpoint they report that instead of running.
      const endpoint = options.baseUrl || ctx.env.HOOKPILOT_BASE_URL ? resolveModelEndpoint(options, ctx.env) : undefined;
      const permissions = () => loadPermissions(projectDir, userSettingsFile(ctx.env), { allowedTools: [], disallowedTools: [] }).settings;
      const engine = await createEngine({
        projectDir,
        env: ctx.env,
        extraHooksFiles: options.hooks,
        secretValues: cliSecretValues(ctx.env),
        log: stderrLogger(ctx),
        startProcesses: false,
        writableRoots: additionalDirectoriesOrNone(permissions),
      });
      ctx.redactor = engine.audit.redactor;
      if (endpoint) {
        const model = new OpenAIChatModel({
          baseURL: endpoint.baseURL,
          apiKey: endpoint.apiKey,
          warn: (message) => engine.options.log?.('warn', message),
        });
        useModelForHooks(engine, model, endpoint.model, permissions(), ctx.env);
      }
      const sessionId = `${HOOKS_TEST_SESSION_PREFIX}${randomUUID()}`;
      const payload: HookPayload = samplePayload(event, options.tool ?? 'Bash', {
        sessionId,
        cwd: projectDir,
        transcriptPath: path.join(engine.options.storageDir, 'transcripts', `${sessionId}.jsonl`),
      });
      if (input && toolEvent) payload.tool_input = input;
      else if (input) Object.assign(payload, input, { hook_event_name: event, session_id: sessionId });

      const runs: HookRunEvent[] = [];
      const listening = engine.dispatcher.onDidRunHook((run) => {
        if (run.sessionId === sessionId) runs.push(run);
      });
      const controller = new AbortController();
      const stopListening = ctx.onInterrupt(() => controller.abort());
      let result: DispatchResult;
      try {
        await engine.startServersFor(payload);
        result = await engine.dispatcher.dispatch(payload, { signal: controller.signal });
        // Async hooks report after the dispatch returns.
        await engine.dispatcher.drain(5_000);
      } finally {
        listening.dispose();
        stopListening();
        await engine.dispose();
      }

      const positions = new SettingsPositions();
      const where = (run: HookRunEvent) => formatSource(run.hook.source, positions, ctx.cwd);
      // Hooks print what they see (the environment's secrets too), as in a run: the report is redacted like one.
      const { redactor } = engine.audit;
      if (options.json) {
        const report = {
          event,
          session_id: sessionId,
          payload,
          hooks: runs.map((run) => runToJson(run, where(run))),
          result: mergedToJson(result),
        };
        ctx.stdout.write(`${JSON.stringify(redactor.redact(report), null, 2)}\n`);
      } else {
        const out = { write: (text: string) => ctx.stdout.write(redactor.redactText(text)) };
        const configured = runs.filter((run) => run.hook.source.kind !== 'builtin');
        const subject = toolEvent ? ` ${String(payload.tool_name)} ${JSON.stringify(payload.tool_input)}` : '';
        out.write(`${event}${subject}\n`);
        if (configured.length === 0) out.write('No configured hook matched.\n');
        for (const run of configured) out.write(describeRun(run, where(run), redactor));
        const builtins = runs.length - configured.length;
        if (builtins > 0) out.write(`(${builtins} built-in hook(s) ran too; --json lists them)\n`);
        out.write(describeMergedResult(result));
      }
      ctx.exitCode = EXIT.ok;
    });
}

function mergedToJson(result: DispatchResult): Record<string, unknown> {
  return {
    decision: result.decision ?? (result.blocked ? 'block' : (result.permission?.behavior ?? 'none')),
    blocked: result.blocked,
    block_reason: result.blockReason ?? null,
    contexts: result.contexts.map((c) => ({ hook_name: c.hookName, content: c.content })),
    system_messages: result.systemMessages,
    warnings: result.warnings,
    updated_input: result.updatedInput ?? null,
    permission: result.permission ?? null,
    stop: result.stop ?? null,
  };
}

/** The folders a run would let the agent write besides the workspace; none when the permissions setting is broken (a run refuses to start then). */
function additionalDirectoriesOrNone(permissions: () => PermissionSettings): readonly string[] {
  try {
    return permissions().additionalDirectories;
  } catch {
    return [];
  }
}
