// Records the demo workspace's shipped session (examples/demo-workspace/.hookpilot/recordings/
// demo-session.jsonl): the real CLI runs one prompt against the scripted model server on
// 127.0.0.1, in a copy of the demo with its real hooks (guard, formatter, rpc policy, webhook
// on a free port). No model or key is needed.   node scripts/record-demo-session.mjs
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const demo = join(root, 'examples', 'demo-workspace');
const out = join(demo, '.hookpilot', 'recordings', 'demo-session.jsonl');
const DEMO_PROMPT = 'Clean up the build output, check the config, and tidy src/app.js.';

// What the scripted model answers, one reply per request: each step shows one hook at work.
const replies = [
  { toolCalls: [{ id: 'call_read', name: 'Read', arguments: { file_path: 'src/app.js' } }] },
  { toolCalls: [{ id: 'call_rm', name: 'Bash', arguments: { command: 'rm -rf build' } }] },
  { toolCalls: [{ id: 'call_env', name: 'Read', arguments: { file_path: '.env' } }] },
  {
    toolCalls: [
      {
        id: 'call_write',
        name: 'Write',
        arguments: {
          file_path: 'src/app.js',
          content:
            '// A tiny app for the agent to work on.   \nfunction greet(name) {\n  return `Hello, ${name}!`;  \n}\n\nmodule.exports = { greet };\n\n\n',
        },
      },
    ],
  },
  { toolCalls: [{ id: 'call_grep', name: 'Grep', arguments: { pattern: 'greet', path: 'src' } }] },
  {
    text: 'I could not delete build/ (rm -rf is blocked) nor read .env (it holds secrets); src/app.js is tidied if you allowed the write.',
  },
];

const work = mkdtempSync(join(tmpdir(), 'hookpilot-record-demo-'));
const children = [];
const cleanup = () => {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);

/** Starts a process and resolves with the first stdout line matching `pattern`. */
function startAndWait(command, args, pattern, options) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options });
    children.push(child);
    let seen = '';
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code} before it was ready`)));
    child.stdout.on('data', (chunk) => {
      seen += String(chunk);
      const match = pattern.exec(seen);
      if (match) resolve(match);
    });
  });
}

async function main() {
  const cli = join(work, 'dist');
  const built = spawnSync(process.execPath, ['esbuild.mjs', '--outdir', cli, '--only', 'cli.js,process-spawner.js'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (built.status !== 0) throw new Error('building the CLI failed');

  // The demo and its sibling rpc server, as they sit in the repository.
  const copy = join(work, 'demo-workspace');
  cpSync(demo, copy, {
    recursive: true,
    filter: (src) => !src.includes('.hookpilot-demo') && !src.includes(join('.hookpilot', 'recordings')),
  });
  cpSync(join(root, 'examples', 'rpc-policy-server'), join(work, 'rpc-policy-server'), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'));

  const receiverEnv = { ...process.env, HOOKPILOT_DEMO_RECEIVER_PORT: '0' };
  const [, port] = await startAndWait(process.execPath, [join(copy, 'tools', 'audit-receiver.js')], /127\.0\.0\.1:(\d+)\//, {
    env: receiverEnv,
  });
  const hooksFile = join(copy, '.vscode', 'hooks.json');
  writeFileSync(hooksFile, readFileSync(hooksFile, 'utf8').replaceAll('127.0.0.1:7777', `127.0.0.1:${port}`));

  const scriptFile = join(work, 'model-script.json');
  writeFileSync(scriptFile, JSON.stringify(replies));
  const tsx = join(root, 'node_modules', '.bin', 'tsx');
  const [url] = await startAndWait(
    tsx,
    [join(root, 'test', 'support', 'model-server-cli.ts'), '--script', scriptFile],
    /http:\/\/127\.0\.0\.1:\d+\/v1/,
    { cwd: root },
  );

  const home = join(work, 'home');
  const env = {
    ...process.env,
    HOME: home,
    HOOKPILOT_HOME: join(home, '.hookpilot'),
    HOOKPILOT_USER_SETTINGS: join(home, 'settings.json'),
  };
  for (const name of ['HOOKPILOT_BASE_URL', 'HOOKPILOT_MODEL', 'HOOKPILOT_API_KEY', 'OPENAI_API_KEY']) delete env[name];
  // No terminal: the Write asks, and with no one to answer it is denied, as a person may deny it.
  const run = spawnSync(
    process.execPath,
    [join(cli, 'cli.js'), 'run', DEMO_PROMPT, '--cwd', copy, '--base-url', url, '--model', 'scripted-model', '--output-format', 'json'],
    {
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (run.status !== 0) throw new Error(`hookpilot run exited with ${run.status}`);
  const result = JSON.parse(run.stdout);
  // The receiver's port is not part of what the demo shows: the recording names the shipped one.
  const recorded = readFileSync(result.audit_log, 'utf8').replaceAll(`127.0.0.1:${port}`, '127.0.0.1:7777');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, recorded);
  console.log(
    `recorded ${result.tool_calls.length} tool calls (${result.tool_calls.map((c) => `${c.name}: ${c.outcome}`).join(', ')}) to ${out}`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`record-demo-session: ${error.message}`);
    process.exit(1);
  },
);
