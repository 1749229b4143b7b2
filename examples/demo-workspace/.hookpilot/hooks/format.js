#!/usr/bin/env node
// PostToolUse formatter: trims trailing whitespace and ends the file with exactly one
// newline, then tells the model what changed (hookSpecificOutput.additionalContext).
const fs = require('fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const file = input.tool_input && input.tool_input.file_path;
if (!file || !fs.existsSync(file)) process.exit(0);
const before = fs.readFileSync(file, 'utf8');
const after = before.replace(/[ \t]+$/gm, '').replace(/\n*$/, '\n');
if (after === before) process.exit(0);
fs.writeFileSync(file, after);
const changed = before.split('\n').filter((line, i) => line !== after.split('\n')[i]).length;
process.stdout.write(JSON.stringify({
  hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: `formatter: normalized whitespace in ${file} (${changed} line(s) changed)` },
}));
