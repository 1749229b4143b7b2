// `npm start`: builds and packages the extension, installs it into a local VS Code in the
// browser (code-server, installed and cached by scripts/install-code-server.sh), opens
// examples/demo-workspace and prints the address. Ctrl-C stops everything.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDeps } from './ensure-deps.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const port = Number(process.env.HOOKPILOT_PORT ?? 8080);
const demo = join(root, 'examples', 'demo-workspace');
const dataDir = join(root, '.tools', 'demo');
const entry = join(
  process.env.HOOKPILOT_E2E_TOOLS_DIR ?? join(root, '.tools', 'code-server'),
  'node_modules',
  'code-server',
  'out',
  'node',
  'entry.js',
);

const step = (label, command, args, options = {}) => {
  console.log(`[hookpilot start] ${label}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
  if (result.status !== 0) {
    console.error(`[hookpilot start] ${label} failed`);
    process.exit(result.status ?? 1);
  }
};

ensureDeps(root);
step('packaging the extension', 'npm', ['run', '--silent', 'package']);
step('installing code-server (cached after the first run)', 'bash', ['scripts/install-code-server.sh']);

const userData = join(dataDir, 'user-data');
const extensions = join(dataDir, 'extensions');
mkdirSync(join(userData, 'User'), { recursive: true });
mkdirSync(extensions, { recursive: true });
// A model is optional: without one the chat replays the demo's recorded session, and the Hook Manager test-fires hooks.
const settings = {
  'workbench.startupEditor': 'none',
  // VS Code's default: the demo asks once whether to trust its folder. Its hooks run only once
  // it is trusted, which is the point of Restricted Mode.
  'security.workspace.trust.startupPrompt': 'once',
  'chat.disableAIFeatures': true,
  ...(process.env.HOOKPILOT_BASE_URL ? { 'hookpilot.baseUrl': process.env.HOOKPILOT_BASE_URL } : {}),
  ...(process.env.HOOKPILOT_MODEL ? { 'hookpilot.model': process.env.HOOKPILOT_MODEL } : {}),
};
writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
const dirArgs = ['--config', '/dev/null', '--user-data-dir', userData, '--extensions-dir', extensions];
step('installing the extension into code-server', process.execPath, [
  entry,
  ...dirArgs,
  '--install-extension',
  join(root, 'dist', 'hookpilot.vsix'),
  '--force',
]);

const children = [];
const receiver = join(demo, 'tools', 'audit-receiver.js');
if (existsSync(receiver)) children.push(spawn(process.execPath, [receiver], { cwd: demo, stdio: 'inherit' }));
const server = spawn(
  process.execPath,
  [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, ...dirArgs, '--disable-telemetry', '--disable-update-check', demo],
  {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
children.push(server);
let announced = false;
server.stdout.on('data', (chunk) => {
  if (!announced && /HTTP server listening/.test(String(chunk))) {
    announced = true;
    console.log(`\n  Hookpilot is running in VS Code: open http://127.0.0.1:${port}/?folder=${encodeURIComponent(demo)}\n`);
    console.log('  Trust the demo folder when VS Code asks: workspace hooks never run in Restricted Mode.\n');
    if (!process.env.HOOKPILOT_BASE_URL) {
      console.log('  No model configured: the chat offers "Replay the demo session", a recorded session whose model replies run through');
      console.log(
        "  the demo's real hooks (the guard blocks rm -rf, the modal asks, the formatter, the rpc policy and the webhook answer).",
      );
      console.log('  To chat with a model, set HOOKPILOT_BASE_URL (and HOOKPILOT_API_KEY if needed) before npm start.\n');
    }
  }
});
const stop = () => {
  for (const child of children) child.kill('SIGTERM');
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
server.on('exit', (code) => {
  for (const child of children) child.kill('SIGTERM');
  process.exit(code ?? 0);
});
