#!/usr/bin/env node
// An rpc hook server for Hookpilot (protocol version 1, see docs/rpc-hooks.md).
// It denies destructive shell commands, answers permission prompts for read-only tools,
// and counts the events it observes. One process serves the whole session.
const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require('vscode-jsonrpc/node');

const READ_ONLY_TOOLS = new Set(['Read', 'Glob', 'Grep']);
const PREFIXES = new Set(['sudo', 'env', 'command', 'exec', 'nohup', 'time']);

const stats = { observed: {}, denied: 0, approved: 0 };

/** Splits a shell command into simple commands, each a list of words (quotes are not parsed). */
function simpleCommands(command) {
  return command
    .split(/;|&&|\|\||\||\n|&|\(|\)|`|\$\(/)
    .map((segment) => segment.trim().split(/\s+/).filter(Boolean))
    .map((words) => {
      let i = 0;
      while (i < words.length && (PREFIXES.has(words[i]) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]))) i++;
      return words.slice(i);
    })
    .filter((words) => words.length > 0);
}

function shortFlags(words) {
  return words.filter((w) => /^-[A-Za-z]+$/.test(w)).join('');
}

function isRecursiveForceRm(words) {
  if (words[0] !== 'rm' && !words[0].endsWith('/rm')) return false;
  const end = words.indexOf('--');
  const args = end === -1 ? words.slice(1) : words.slice(1, end);
  const flags = shortFlags(args);
  const recursive = /[rR]/.test(flags) || args.includes('--recursive');
  const force = flags.includes('f') || args.includes('--force');
  return recursive && force;
}

function isForcePush(words) {
  if (words[0] !== 'git') return false;
  const push = words.indexOf('push');
  if (push === -1) return false;
  const args = words.slice(push + 1);
  // --force-with-lease and --force-if-includes are the safe spellings and stay allowed.
  return args.includes('--force') || shortFlags(args).includes('f') || args.some((a) => a.startsWith('+'));
}

function reviewBash(command) {
  for (const words of simpleCommands(command)) {
    if (isRecursiveForceRm(words)) return 'rm -rf is not allowed here; delete specific paths without -f, or ask the user';
    if (isForcePush(words)) return 'git push --force is not allowed; use --force-with-lease if you must rewrite a branch';
  }
  return undefined;
}

function preToolUse(payload) {
  if (payload.tool_name !== 'Bash' || typeof payload.tool_input?.command !== 'string') return {};
  const reason = reviewBash(payload.tool_input.command);
  if (!reason) return {};
  stats.denied++;
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: `rpc-policy-server: ${reason}` } };
}

function permissionRequest(payload) {
  if (!READ_ONLY_TOOLS.has(payload.tool_name)) return {};
  stats.approved++;
  return { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } };
}

const connection = createMessageConnection(new StreamMessageReader(process.stdin), new StreamMessageWriter(process.stdout));

connection.onRequest('initialize', () => ({
  name: 'rpc-policy-server',
  version: '1.0.0',
  observe: ['TurnStart', 'PostToolUse', 'PostToolUseFailure', 'StepComplete', 'Stop', 'SessionEnd'],
  intercept: ['PreToolUse', 'PermissionRequest'],
}));

connection.onNotification('hook/observe', ({ event }) => {
  stats.observed[event] = (stats.observed[event] ?? 0) + 1;
});

connection.onRequest('hook/intercept', ({ event, payload }) => {
  if (event === 'PreToolUse') return preToolUse(payload);
  if (event === 'PermissionRequest') return permissionRequest(payload);
  return {};
});

// Not part of the hook protocol: lets a person (or a test) ask what the server has seen.
connection.onRequest('policy/stats', () => stats);

connection.onRequest('shutdown', () => {
  // stdout belongs to the protocol; everything for humans goes to stderr.
  process.stderr.write(`rpc-policy-server: ${JSON.stringify(stats)}\n`);
  return null;
});
connection.onNotification('exit', () => process.exit(0));
connection.onClose(() => process.exit(0));
connection.listen();
