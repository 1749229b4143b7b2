import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { codeServerEntry, resultsDir } from './paths';
import { waitUntil } from './wait';
import { errorMessage } from '../../../src/core/error-message';

export interface CodeServerOptions {
  /** The workspace folder to open. */
  folder: string;
  /** false opens the folder in Restricted Mode (workspace trust stays on). */
  trusted: boolean;
  /** User settings, written over the harness defaults into User/settings.json. */
  settings?: Record<string, unknown>;
  /** .vsix files installed into the fresh extensions dir before start. */
  extensions?: string[];
  /** Extra environment for code-server and so for the extension host. */
  env?: Record<string, string>;
  /** Names the folder under test-results/e2e/logs/ that the logs are copied to on stop. */
  name?: string;
}

export interface CodeServer {
  /** Base address, e.g. http://127.0.0.1:PORT/ */
  url: string;
  port: number;
  userDataDir: string;
  extensionsDir: string;
  logFile: string;
  /** code-server's stdout and stderr so far. */
  logs(): string;
  /** Ends code-server and every process it started, copies the logs out, removes the temp dirs. */
  stop(): Promise<void>;
}

// Quiet, deterministic defaults: no welcome page, no update or gallery checks, and in an
// untrusted folder no startup trust prompt (the folder simply stays in Restricted Mode).
const DEFAULT_SETTINGS: Record<string, unknown> = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.enableExperiments': false,
  'update.mode': 'none',
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'security.workspace.trust.startupPrompt': 'never',
  'chat.disableAIFeatures': true,
  'chat.commandCenter.enabled': false,
};

const START_TIMEOUT_MS = 60_000;
const INSTALL_TIMEOUT_MS = 120_000;
const STOP_GRACE_MS = 5_000;

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
  if (!existsSync(codeServerEntry)) {
    throw new Error(`code-server is not installed at ${codeServerEntry}: run npm run setup:e2e`);
  }
  const tempRoot = await mkdtemp(path.join(os.tmpdir(), 'hookpilot-e2e-'));
  const userDataDir = path.join(tempRoot, 'user-data');
  const extensionsDir = path.join(tempRoot, 'extensions');
  const logFile = path.join(tempRoot, 'code-server.log');
  await mkdir(path.join(userDataDir, 'User'), { recursive: true });
  await mkdir(extensionsDir, { recursive: true });
  await writeFile(path.join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...DEFAULT_SETTINGS, ...options.settings }, null, 2));
  const env = childEnv(options.env);
  // --config /dev/null: the flags say everything, and no config file lands in ~/.config.
  const dirArgs = ['--config', '/dev/null', '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  try {
    for (const vsix of options.extensions ?? []) {
      await installExtension(vsix, dirArgs, env, logFile);
    }
    const serverArgs = [
      '--auth',
      'none',
      ...dirArgs,
      '--disable-telemetry',
      '--disable-update-check',
      ...(options.trusted ? ['--disable-workspace-trust'] : []),
      options.folder,
    ];
    const { child, port } = await listenOnFreePort(serverArgs, env, logFile);
    const logs = () => readLog(logFile);
    return {
      url: `http://127.0.0.1:${port}/`,
      port,
      userDataDir,
      extensionsDir,
      logFile,
      logs,
      stop: async () => {
        await killGroup(child);
        await keepLogs(tempRoot, options.name ?? `code-server-${port}`);
        await rm(tempRoot, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await keepLogs(tempRoot, options.name ?? 'code-server-failed-start');
    await rm(tempRoot, { recursive: true, force: true });
    throw error;
  }
}

/** A parent VS Code's variables would make code-server forward to that instance instead. */
function childEnv(extra: Record<string, string> | undefined): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!key.startsWith('VSCODE_') && key !== 'ELECTRON_RUN_AS_NODE') env[key] = value;
  }
  return { ...env, ...extra };
}

async function installExtension(vsix: string, dirArgs: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<void> {
  const logFd = openSync(logFile, 'a');
  const child = spawn(process.execPath, [codeServerEntry, ...dirArgs, '--install-extension', vsix], {
    stdio: ['ignore', logFd, logFd],
    env,
    detached: true,
  });
  closeSync(logFd);
  const code = await Promise.race([
    exitOf(child),
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), INSTALL_TIMEOUT_MS).unref()),
  ]);
  if (code === 'timeout') await killGroup(child);
  const log = readLog(logFile);
  if (code !== 0 || !/was successfully installed/.test(log)) {
    throw new Error(`installing ${vsix} failed (exit ${String(code)}):\n${log}`);
  }
}

async function listenOnFreePort(args: string[], env: NodeJS.ProcessEnv, logFile: string): Promise<{ child: ChildProcess; port: number }> {
  // Another process may take the port between our probe and code-server's bind: retry then.
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const logFd = openSync(logFile, 'a');
    const child = spawn(process.execPath, [codeServerEntry, '--bind-addr', `127.0.0.1:${port}`, ...args], {
      stdio: ['ignore', logFd, logFd],
      env,
      detached: true,
    });
    closeSync(logFd);
    killOnExit(child);
    let exitCode: number | null | undefined;
    void exitOf(child).then((code) => {
      exitCode = code;
    });
    try {
      await waitUntil(
        `code-server on port ${port}`,
        async () => {
          if (exitCode !== undefined) throw new Error(`code-server exited with ${String(exitCode)}`);
          const response = await fetch(`http://127.0.0.1:${port}/healthz`);
          return response.ok ? true : undefined;
        },
        { timeoutMs: START_TIMEOUT_MS, intervalMs: 250 },
      );
      return { child, port };
    } catch (error) {
      await killGroup(child);
      if (attempt < 3 && /EADDRINUSE/.test(readLog(logFile))) continue;
      const message = errorMessage(error);
      throw new Error(`${message}\n--- code-server log ---\n${readLog(logFile)}`);
    }
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/** If the test process dies without stop(), its code-server must not outlive it. */
function killOnExit(child: ChildProcess): void {
  const kill = () => signalGroup(child, 'SIGKILL');
  process.once('exit', kill);
  child.once('exit', () => process.removeListener('exit', kill));
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals | 0): boolean {
  if (child.pid === undefined) return false;
  try {
    process.kill(-child.pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** code-server leads its own process group, so the extension host and helpers die with it. */
async function killGroup(child: ChildProcess): Promise<void> {
  if (!signalGroup(child, 'SIGTERM')) return;
  if (await groupGoneWithin(child, STOP_GRACE_MS)) return;
  signalGroup(child, 'SIGKILL');
  // Bounded: a zombie nobody reaps would keep the group "alive" forever.
  await groupGoneWithin(child, STOP_GRACE_MS);
}

async function groupGoneWithin(child: ChildProcess, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (!signalGroup(child, 0)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function readLog(logFile: string): string {
  try {
    return readFileSync(logFile, 'utf8');
  } catch {
    return '';
  }
}

async function keepLogs(tempRoot: string, name: string): Promise<void> {
  const target = path.join(resultsDir, 'logs', name);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  await cp(path.join(tempRoot, 'code-server.log'), path.join(target, 'code-server.log')).catch(() => undefined);
  await cp(path.join(tempRoot, 'user-data', 'logs'), path.join(target, 'vscode'), { recursive: true }).catch(() => undefined);
}
