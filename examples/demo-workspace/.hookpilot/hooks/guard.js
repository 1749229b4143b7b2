#!/usr/bin/env node
// PreToolUse guard (Claude Code protocol): the event JSON arrives on stdin; exit 2 blocks
// the call and stderr tells the model why; exit 0 lets it through.
const input = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const tool = input.tool_name;
const args = input.tool_input || {};

function block(reason) {
  process.stderr.write(reason);
  process.exit(2);
}

if (tool === 'Bash') {
  const command = String(args.command || '');
  if (/\brm\s+(-[a-zA-Z]*r[a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*r|-r\s+-f|-f\s+-r)\b/.test(command)) block('rm -rf is blocked by the demo guard: delete specific files instead.');
  if (/\bgit\s+push\b.*\s(--force|-f)(\s|$)/.test(command)) block('Force pushes are blocked by the demo guard.');
  if (/(^|[\s/'"])\.env(\.|\b)/.test(command)) block('Commands touching .env files are blocked: they hold secrets.');
}
if (['Read', 'Write', 'Edit'].includes(tool) && /(^|\/)\.env(\.[^/]*)?$/.test(String(args.file_path || ''))) {
  block(`${tool} of ${args.file_path} is blocked: .env files hold secrets.`);
}
process.exit(0);
