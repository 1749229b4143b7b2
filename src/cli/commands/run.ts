import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import type { AgentEvent } from '../../core/agent/agent-events';
import { permissionModeSchema } from '../../core/agent/permissions/permission-settings';
import type { TurnOutcome } from '../../core/agent/turn-loop';
import { auditFilePath } from '../../core/audit/audit-writer';
import type { Redactor } from '../../core/audit/redactor';
import type { EngineLogger } from '../../core/engine/hook-engine';
import { EXIT, usageError } from '../cli-error';
import { projectDirOf, stderrLogger, type CliContext } from '../cli-context';
import { cliSecretValues, projectStorageDir, resolveModelEndpoint, userPassEnv, userSettingsFile } from '../cli-environment';
import { storageRoot } from '../../core/storage-root';
import { errorMessage } from '../../core/error-message';
import { configFiles, createEngine, createSession, sessionToResume } from '../composition';
import { headlessApprover } from '../headless-approver';
import { ConfigFileSnapshot, KEPT_CONFIG_FILE } from '../config-snapshot';
import { ConfigChangeNotices } from '../config-change-notices';
import { relayHookRuns } from '../hook-run-events';
import { JsonPrinter } from '../output/json-printer';
import { OUTPUT_FORMATS, type RunPrinter } from '../output/printer';
import { buildRunResult, type RunResult } from '../output/run-result';
import { StreamJsonPrinter } from '../output/stream-json-printer';
import { TextPrinter } from '../output/text-printer';
import { readPrompt } from '../read-input';
import { TerminalApprover } from '../terminal-approver';
import { TerminalElicitor } from '../terminal-elicitor';
import { sttyEcho } from '../terminal-echo';
import type { AgentSession } from '../../core/agent/agent-session';
import type { ElicitationAnswer, ElicitationRequest } from '../../core/mcp/elicitation-content';
import { collect } from './hooks';
import { createCliMcpManager, formatMcpProblem, loadCliMcpConfigs, mcpTools } from '../mcp-setup';
import { mcpProtectedFiles } from '../../core/mcp/mcp-protected-files';
import { loadSubagentDefinitions, subagentFolders } from '../../core/agent/subagent-definitions';
import { plainToolNames, splitToolList } from '../tool-rules';
import { loadPermissions, workspacePermissionNotices } from '../workspace-permissions';

const runOptionsSchema = z.object({
  cwd: z.string().optional(),
  baseUrl: z.string().optional(),
  model: z.string().optional(),
  allowedTools: z.array(z.string()).default([]),
  disallowedTools: z.array(z.string()).default([]),
  permissionMode: permissionModeSchema.optional(),
  maxSteps: z.number().int().positive().optional(),
  maxRetries: z.number().int().nonnegative().optional(),
  outputFormat: z.enum(OUTPUT_FORMATS).default('text'),
  hooks: z.array(z.string()).default([]),
  resume: z.string().optional(),
  continue: z.boolean().optional(),
  passEnv: z.array(z.string()).default([]),
  mcpConfig: z.array(z.string()).default([]),
});
type RunOptions = z.infer<typeof runOptionsSchema>;

/** `--pass-env NAME`: a variable name, repeatable. */
function envName(value: string, previous: string[] = []): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value))
    throw new InvalidArgumentError(`"${value}" is not an environment variable name (letters, digits and _)`);
  return [...previous, value];
}

function integer(min: number) {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`expected a whole number of at least ${min}`);
    return n;
  };
}

export function registerRunCommand(program: Command, ctx: CliContext): void {
  program
    .command('run')
    .description(
      'run the agent on one prompt, headless (hooks from .vscode/hooks.json, .vscode/settings.json, user settings, .claude/settings*.json, the managed policy and --hooks)',
    )
    .argument('[prompt]', 'what to do; read from stdin when omitted and stdin is piped')
    .option('--cwd <dir>', 'the workspace to work in (default: the current directory)')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (default: $HOOKPILOT_BASE_URL)')
    .option('--model <name>', 'model name (default: $HOOKPILOT_MODEL)')
    .option('--allowed-tools <rules>', 'tools or rules to allow without asking, e.g. "Read,Bash(git *)" (repeatable)', collect)
    .option('--disallowed-tools <rules>', 'tools or rules to deny; plain tool names are not offered to the model (repeatable)', collect)
    .addOption(
      new Option(
        '--permission-mode <mode>',
        "permission mode (default: the workspace settings' mode, else the user settings', else default)",
      ).choices(permissionModeSchema.options),
    )
    .option('--max-steps <n>', 'stop after this many model steps (default 50)', integer(1))
    .option('--max-retries <n>', 'retries of a failed model request (default 3)', integer(0))
    .addOption(
      new Option('--output-format <format>', 'text, json (one object at the end) or stream-json (one event per line)')
        .choices(OUTPUT_FORMATS)
        .default('text'),
    )
    .option('--hooks <file>', 'an extra hooks.json-format file (repeatable)', collect)
    .addOption(
      new Option('--resume <session-id>', 'continue an earlier session of this workspace (SessionStart gets source "resume")').conflicts(
        'continue',
      ),
    )
    .option('--continue', 'continue the most recent session of this workspace')
    .option(
      '--mcp-config <file>',
      'MCP servers from a .mcp.json-format file, added to .mcp.json, .vscode/mcp.json and user settings (repeatable)',
      collect,
    )
    .option(
      '--pass-env <name>',
      'let the Bash tool inherit this secret-looking variable (its value stays redacted from the model; repeatable)',
      envName,
    )
    .action(async (prompt: string | undefined, raw: unknown) => {
      ctx.exitCode = await run(prompt, runOptionsSchema.parse(raw), ctx);
    });
}

async function run(promptArg: string | undefined, options: RunOptions, ctx: CliContext): Promise<number> {
  const projectDir = projectDirOf(ctx, options.cwd);
  const allowedTools = options.allowedTools.flatMap((list) => splitToolList(list, '--allowed-tools'));
  const disallowedTools = options.disallowedTools.flatMap((list) => splitToolList(list, '--disallowed-tools'));
  const endpoint = resolveModelEndpoint(options, ctx.env);
  // Taken before anything is read: whatever changes these files later applies to the next session only.
  const configSnapshot = ConfigFileSnapshot.take(configFiles(projectDir, ctx.env, options.hooks));
  // What the last run here left: a file changed since then was changed while no run watched it.
  const keptConfig = path.join(projectStorageDir(storageRoot(ctx.env), projectDir), KEPT_CONFIG_FILE);
  for (const file of configSnapshot.changedSinceKept(keptConfig)) {
    ctx.stderr.write(`hookpilot: ${displayPath(projectDir, file)} changed since the last run in this project; what it configures applies now
`);
  }
  const loaded = loadPermissions(projectDir, userSettingsFile(ctx.env), { mode: options.permissionMode, allowedTools, disallowedTools });
  for (const notice of workspacePermissionNotices(loaded)) ctx.stderr.write(`hookpilot: ${notice}\n`);
  const permissions = loaded.settings;
  const prompt = await readPrompt(promptArg, ctx.stdin, (line) => ctx.stderr.write(line));

  const toStderr = stderrLogger(ctx);
  // The ErrorReport built-in hands model errors to the host log; the run reports its error itself, once, at the end.
  const log: EngineLogger = (level, message) => (message.startsWith('[model] ') ? undefined : toStderr(level, message));
  const resumed = sessionToResume(projectDir, ctx.env, options);
  const mcpConfigs = loadCliMcpConfigs(projectDir, userSettingsFile(ctx.env), options.mcpConfig);
  for (const problem of mcpConfigs.flatMap((c) => c.problems)) ctx.stderr.write(`hookpilot: ${formatMcpProblem(problem, ctx.cwd)}\n`);
  const writableRoots = permissions.additionalDirectories;
  const secretValues = cliSecretValues(ctx.env);
  const engine = await createEngine({ projectDir, env: ctx.env, extraHooksFiles: options.hooks, secretValues, log, writableRoots });
  ctx.redactor = engine.audit.redactor;
  // A guard configured in a file that cannot be read would not run: no session starts without it.
  const unreadable = engine.problems.find((problem) => problem.code === 'unreadable');
  if (unreadable) {
    await engine.dispose();
    throw usageError(`${unreadable.message}; fix or remove it (the hooks configured there would not run)`);
  }
  // Someone can answer only when stdin is a terminal; otherwise every ask is a deny.
  const terminal = ctx.stdin.isTTY ? new TerminalApprover(ctx.stdin, ctx.question, sttyEcho()) : undefined;
  const person = terminal && new TerminalElicitor(terminal, ctx.question);
  // A server asks for input during a tool call: the session's hooks answer, or the person at the terminal.
  const answering: { session?: AgentSession } = {};
  const elicit = (request: ElicitationRequest, signal: AbortSignal): Promise<ElicitationAnswer> =>
    answering.session ? answering.session.answerElicitation(request, person, signal) : Promise.resolve({ action: 'decline' });
  // Servers start before the session: their tools are part of what the model is offered.
  const mcp = createCliMcpManager(projectDir, ctx.env, log, engine.audit.redactor, writableRoots, elicit);
  await mcp.start(mcpConfigs);
  engine.useMcp(mcp);
  // The CLI trusts its workspace (like `claude -p`): its .claude/agents count.
  const subagents = loadSubagentDefinitions(subagentFolders(projectDir, ctx.env.HOME || undefined, true));
  for (const problem of subagents.problems) ctx.stderr.write(`hookpilot: warning: subagent skipped: ${problem}\n`);
  const session = createSession(engine, {
    sessionId: resumed,
    endpoint,
    permissions,
    approver: terminal ?? headlessApprover,
    disallowedTools: plainToolNames(disallowedTools),
    maxSteps: options.maxSteps,
    maxRetries: options.maxRetries,
    env: ctx.env,
    passEnv: [...options.passEnv, ...passEnvSetting(ctx)],
    extraTools: mcpTools(mcp, plainToolNames(disallowedTools)),
    subagents: subagents.definitions,
    extraProtectedPaths: mcpProtectedFiles(
      projectDir,
      mcpConfigs.flatMap((config) => config.servers),
      ctx.env,
    ),
    onPersistError: (message) => ctx.stderr.write(`hookpilot: warning: ${message}\n`),
    configSnapshot,
  });
  answering.session = session;
  const printer = createPrinter(
    options.outputFormat,
    ctx,
    { sessionId: session.id, cwd: projectDir, permissionMode: permissions.mode },
    engine.audit.redactor,
  );
  let blockedBy: string | undefined;
  const forward = (event: AgentEvent) => {
    if (event.type === 'prompt_blocked') blockedBy = event.hookName;
    printer.event(event);
  };
  const listening = [session.onEvent(forward), relayHookRuns(engine.dispatcher, session.id, forward)];
  // A tool call may have rewritten a configuration file: ConfigChange observes each new content.
  const notices = new ConfigChangeNotices({
    snapshot: configSnapshot,
    hooks: session.hooks,
    projectDir,
    say: (line) => ctx.stderr.write(line),
    display: (file) => displayPath(projectDir, file),
  });
  listening.push(session.onEvent((event) => (event.type === 'tool_finished' ? void notices.check(controller.signal) : undefined)));

  const controller = new AbortController();
  let interrupted: 'SIGINT' | 'SIGTERM' | undefined;
  const stopListening = ctx.onInterrupt((signal) => {
    interrupted = signal;
    controller.abort();
  });
  // A second Ctrl-C exits at once: async hooks still get their SIGTERM on the way out.
  const stopAsyncOnExit = () => {
    void engine.dispatcher.cancelAsync('the CLI exited');
    mcp.killNow();
  };
  process.once('exit', stopAsyncOnExit);
  const started = performance.now();
  let outcome: TurnOutcome;
  try {
    await session.start(resumed ? 'resume' : 'startup', controller.signal);
    outcome = controller.signal.aborted ? cancelledOutcome() : await session.prompt(prompt, controller.signal);
    await notices.check(controller.signal);
    // SessionEnd runs whatever happened; observers get a bounded wait before the process exits.
    await session.end(interrupted ? 'cancelled' : outcome.reason === 'error' ? 'error' : 'completed');
  } finally {
    terminal?.dispose();
    for (const l of listening) l.dispose();
    await mcp.stop();
    await engine.dispose();
    stopListening();
    process.off('exit', stopAsyncOnExit);
    for (const file of configSnapshot.changed()) {
      ctx.stderr.write(`hookpilot: ${displayPath(projectDir, file)} changed during this session; the change applies to the next session\n`);
    }
    try {
      configSnapshot.keep(keptConfig);
    } catch (error) {
      ctx.stderr.write(`hookpilot: warning: cannot keep what the configuration files hold for the next run: ${errorMessage(error)}\n`);
    }
  }
  const result = buildRunResult(outcome, {
    sessionId: session.id,
    auditLog: auditFilePath(engine.audit.dir, session.id),
    durationMs: performance.now() - started,
  });
  printer.result(result);
  if (result.is_error) ctx.stderr.write(`hookpilot: ${describeFailure(result, blockedBy, interrupted)}\n`);
  if (interrupted) return interrupted === 'SIGINT' ? EXIT.interrupted : EXIT.terminated;
  return result.is_error ? EXIT.failed : EXIT.ok;
}

function createPrinter(
  format: RunOptions['outputFormat'],
  ctx: CliContext,
  stream: { sessionId: string; cwd: string; permissionMode: string },
  redactor: Redactor,
): RunPrinter {
  switch (format) {
    case 'json':
      return new JsonPrinter(ctx.stdout, ctx.stderr, redactor);
    case 'stream-json':
      return new StreamJsonPrinter(ctx.stdout, stream, redactor);
    case 'text':
      return new TextPrinter(ctx.stdout, ctx.stderr, redactor);
  }
}

/** Inside the workspace, relative to it; elsewhere (user settings, --hooks files), absolute. */
function displayPath(projectDir: string, file: string): string {
  const relative = path.relative(projectDir, file);
  return relative.startsWith('..') || path.isAbsolute(relative) ? file : relative;
}

function passEnvSetting(ctx: CliContext): string[] {
  const { names, problem } = userPassEnv(userSettingsFile(ctx.env));
  if (problem) ctx.stderr.write(`hookpilot: warning: ${problem}\n`);
  return names;
}

function cancelledOutcome(): TurnOutcome {
  return { reason: 'cancelled', result: '', toolCalls: [], steps: 0, usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 } };
}

function describeFailure(result: RunResult, blockedBy: string | undefined, interrupted: string | undefined): string {
  if (interrupted) return `interrupted (${interrupted}): the turn was cancelled and the session ended`;
  switch (result.stop_reason) {
    case 'blocked':
      return `the prompt was blocked${blockedBy ? ` by hook "${blockedBy}"` : ''}: ${result.error ?? ''}`;
    case 'cancelled':
      return 'the turn was cancelled';
    default:
      return result.error ?? `the run ended with ${result.stop_reason}`;
  }
}
