import path from 'node:path';
import type { ConfigProblem } from '../hooks/config/config-problems';
import type { HandlerSpec, HookDefinition, ServerDefinition } from '../hooks/types';
import { hookDependencyFiles, nodeManifests, scriptFolders, serverDependencyFiles } from './protected-files';
import { FOLDER_PIN_LIMITS, ScriptPins, type PinSpec } from './script-pins';

/** What a hook whose script changed since it was pinned gets instead of a run. */
const SCRIPT_CHANGED = 'script changed since it was approved';
const SERVER_PIN = 'server:';

/**
 * The scripts each command hook and rpc server of the applied configuration runs, pinned by
 * content when a person's configuration is applied (docs/hooks.md#pinned-hook-scripts). A
 * command hook's pins are its own; an rpc hook's are its server's.
 */
export class HookScriptPins {
  private readonly pins = new ScriptPins();

  constructor(private readonly projectDir: string) {}

  /** The pins a hook of this spec runs under; none for hooks that run no script of the workspace. */
  static keyOf(hookId: string, spec: HandlerSpec | undefined): string | undefined {
    if (spec?.type === 'command') return hookId;
    if (spec?.type === 'rpc') return HookScriptPins.serverKey(spec.server);
    return undefined;
  }

  static serverKey(name: string): string {
    return `${SERVER_PIN}${name}`;
  }

  static isServerKey(key: string): boolean {
    return key.startsWith(SERVER_PIN);
  }

  /** Pins what each hook and server runs now; a warning for each folder too large to hash. */
  pinAll(hooks: readonly HookDefinition[], servers: readonly ServerDefinition[]): ConfigProblem[] {
    const { projectDir } = this;
    const entries = new Map<string, PinSpec>();
    const spec = (files: string[]): PinSpec => {
      const folders = scriptFolders(projectDir, files);
      return { files: [...files, ...nodeManifests(projectDir, folders)], folders };
    };
    for (const hook of hooks) if (hook.spec.type === 'command') entries.set(hook.id, spec(hookDependencyFiles(projectDir, hook)));
    for (const server of servers) entries.set(HookScriptPins.serverKey(server.name), spec(serverDependencyFiles(projectDir, server)));
    return this.pins.pinAll(entries).map((dir) => this.oversizedFolder(dir));
  }

  /** Why the scripts under `key` must not run: the first file that changed since they were approved. */
  change(key: string): string | undefined {
    const file = this.pins.changed(key);
    return file === undefined ? undefined : `${SCRIPT_CHANGED}: ${this.shown(file)}`;
  }

  /**
   * The files under `key` that changed since they were approved, relative to the workspace, and
   * the fingerprint `approve` takes; undefined while none changed.
   */
  review(key: string): { files: string[]; fingerprint: string } | undefined {
    // The cheap check first: this runs for every row each time the Hook Manager is drawn.
    if (this.pins.changed(key) === undefined) return undefined;
    const review = this.pins.review(key);
    if (!review || review.changed.length === 0) return undefined;
    return { files: review.changed.map((file) => this.shown(file)).sort(), fingerprint: review.fingerprint };
  }

  /** A person approves the scripts as `review` listed them: false if they changed since. */
  approve(key: string, fingerprint: string): boolean {
    return this.pins.approve(key, fingerprint);
  }

  files(key: string): readonly string[] {
    return this.pins.files(key);
  }

  private shown(file: string): string {
    return path.relative(this.projectDir, file) || file;
  }

  /** A script folder too large to hash: a changed file in it goes unseen, which a person should know. */
  private oversizedFolder(dir: string): ConfigProblem {
    const shown = path.relative(this.projectDir, dir) || '.';
    const { files, bytes } = FOLDER_PIN_LIMITS;
    return {
      severity: 'warning',
      code: 'script-folder-too-large',
      message: `${shown} holds more than ${files} files or ${bytes / 1024 / 1024} MiB: only its list of entries is pinned, so a changed file in it does not stop its hooks. Keep hook scripts in a small folder of their own.`,
      path: '',
      sourceKind: 'workspace',
    };
  }
}
