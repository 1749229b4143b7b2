/** What "Open Hooks Config" writes into a new .vscode/hooks.json: nothing active, one example to uncomment. */
export const HOOKS_JSON_TEMPLATE = `// Hookpilot hooks for this workspace, in Claude Code's format (JSON with comments).
// Saved changes apply at once; see them in "Hookpilot: Open Hook Manager".
// Hooks from this file run only when the folder is trusted.
//
// Events: SessionStart, UserPromptSubmit, TurnStart, SystemPrompt, BeforeLLM, AfterLLM,
// PreToolUse, PermissionRequest, PermissionDenied, PostToolUse, PostToolUseFailure,
// StepComplete, Stop, SubagentStart, SubagentStop, PreCompact, PostCompact, Notification,
// Error, SessionEnd. Handler types: command, http, rpc (with "servers"), builtin.
{
  "hooks": {
    // A guard before every shell command: the event JSON arrives on stdin; exit 2 blocks
    // the call and stderr tells the agent why. Uncomment and point it at your script.
    //
    // "PreToolUse": [
    //   {
    //     "matcher": "Bash",
    //     "hooks": [
    //       {
    //         "type": "command",
    //         "name": "guard",
    //         "description": "Blocks dangerous shell commands.",
    //         "command": "node \\"\${CLAUDE_PROJECT_DIR}/.hookpilot/hooks/guard.js\\"",
    //         "timeout": 10
    //       }
    //     ]
    //   }
    // ]
  }
}
`;
