import { readdirSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { CLINE_EVENTS } from './cline';
import { lookup } from './conversion';
import {
  IMPORT_TOOLS,
  type ConfigFileSource,
  type ConfigFormat,
  type FoundSource,
  type ImportTool,
  type SourceScope,
} from './import-types';
import { errorMessage } from '../error-message';
import { readConfigText } from '../read-regular-file';

export interface DiscoverOptions {
  /** The home directory for user-level files (default: the user's). */
  home?: string;
  /** Only this tool's files. */
  from?: ImportTool;
}

interface ConfigLocation {
  tool: ImportTool;
  format: ConfigFormat;
  scope: SourceScope;
  /** Relative to the project, or to the home directory for scope `user`. */
  file: string;
}

/** Every configuration file the import reads, in the order sources are reported. */
const CONFIG_LOCATIONS: readonly ConfigLocation[] = [
  { tool: 'claude', format: 'claude-settings', scope: 'project', file: '.claude/settings.json' },
  { tool: 'claude', format: 'claude-settings', scope: 'local', file: '.claude/settings.local.json' },
  { tool: 'claude', format: 'claude-settings', scope: 'user', file: '.claude/settings.json' },
  { tool: 'cursor', format: 'cursor-hooks', scope: 'project', file: '.cursor/hooks.json' },
  { tool: 'gemini', format: 'gemini-settings', scope: 'project', file: '.gemini/settings.json' },
  { tool: 'coding-agent', format: 'coding-agent-hooks', scope: 'project', file: '.coding-agent/hooks.json' },
  { tool: 'atomcode', format: 'atomcode-json', scope: 'project', file: '.hooks.json' },
  { tool: 'atomcode', format: 'atomcode-toml', scope: 'project', file: '.atomcode/hooks/hooks.toml' },
];

const COPILOT_DIR = '.github/hooks';
const CLINE_DIR = '.clinerules/hooks';

/** Where the import looks, as shown to the user (for "nothing found"). */
export function searchedLocations(from?: ImportTool): string[] {
  const out: string[] = [];
  for (const tool of IMPORT_TOOLS) {
    if (from !== undefined && tool !== from) continue;
    if (tool === 'copilot') out.push(`${COPILOT_DIR}/*.json`);
    if (tool === 'cline') out.push(`${CLINE_DIR}/<Event>`);
    for (const location of CONFIG_LOCATIONS)
      if (location.tool === tool) out.push(location.scope === 'user' ? `~/${location.file}` : location.file);
  }
  return out;
}

function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function readSource(base: Omit<ConfigFileSource, 'text' | 'readError'>): ConfigFileSource {
  try {
    return { ...base, text: readConfigText(base.file) };
  } catch (err) {
    return { ...base, text: '', readError: errorMessage(err) };
  }
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir).sort();
  } catch {
    return [];
  }
}

/**
 * Finds the hook configurations of other tools in a project (and, for Claude Code, the
 * user's settings): config files read as text, Cline's hook scripts with their
 * executable bit. A file reached twice (the project is the home directory) is listed once.
 */
export function discoverHookSources(cwd: string, options: DiscoverOptions = {}): FoundSource[] {
  const projectDir = path.resolve(cwd);
  const home = path.resolve(options.home ?? homedir());
  const display = (scope: SourceScope, relative: string) => (scope === 'user' ? `~/${relative}` : relative);
  const found: FoundSource[] = [];
  const seen = new Set<string>();
  const add = (source: FoundSource) => {
    const real = realpathSync(source.file);
    if (seen.has(real)) return;
    seen.add(real);
    found.push(source);
  };
  for (const tool of IMPORT_TOOLS) {
    if (options.from !== undefined && tool !== options.from) continue;
    if (tool === 'copilot') {
      for (const name of listDir(path.join(projectDir, COPILOT_DIR))) {
        const file = path.join(projectDir, COPILOT_DIR, name);
        if (name.endsWith('.json') && isFile(file))
          add(readSource({ tool, format: 'copilot-hooks', file, displayPath: `${COPILOT_DIR}/${name}`, scope: 'project', projectDir }));
      }
    }
    if (tool === 'cline') {
      for (const name of listDir(path.join(projectDir, CLINE_DIR))) {
        const file = path.join(projectDir, CLINE_DIR, name);
        const extension = path.extname(name);
        const event = name.slice(0, name.length - extension.length);
        if (!lookup(CLINE_EVENTS, event) || !isFile(file)) continue;
        // Cline's "enabled" is the executable bit on Unix and mere existence on Windows.
        const executable = process.platform === 'win32' || (statSync(file).mode & 0o111) !== 0;
        add({
          tool,
          format: 'cline-script',
          file,
          displayPath: `${CLINE_DIR}/${name}`,
          scope: 'project',
          projectDir,
          event,
          extension,
          executable,
        });
      }
    }
    for (const location of CONFIG_LOCATIONS) {
      if (location.tool !== tool) continue;
      const file = path.join(location.scope === 'user' ? home : projectDir, location.file);
      if (isFile(file))
        add(
          readSource({
            tool,
            format: location.format,
            file,
            displayPath: display(location.scope, location.file),
            scope: location.scope,
            projectDir,
          }),
        );
    }
  }
  return found;
}
