import type {
  AgentHandlerConfig,
  CommandHandlerConfig,
  HttpHandlerConfig,
  McpToolHandlerConfig,
  PromptHandlerConfig,
} from '../hooks/config/config-schema';
import type { HookEventName } from '../hooks/events';

/** The tools whose hooks can be imported into `.vscode/hooks.json`. */
export const IMPORT_TOOLS = ['claude', 'copilot', 'cline', 'cursor', 'gemini', 'coding-agent', 'atomcode'] as const;
export type ImportTool = (typeof IMPORT_TOOLS)[number];

export const TOOL_LABELS: Readonly<Record<ImportTool, string>> = {
  claude: 'Claude Code',
  copilot: 'GitHub Copilot',
  cline: 'Cline',
  cursor: 'Cursor',
  gemini: 'Gemini CLI',
  'coding-agent': 'coding-agent',
  atomcode: 'AtomCode',
};

/** project: committed with the repository; local: personal but inside it; user: the home directory. */
export type SourceScope = 'project' | 'local' | 'user';

export type ConfigFormat =
  'claude-settings' | 'copilot-hooks' | 'cursor-hooks' | 'gemini-settings' | 'coding-agent-hooks' | 'atomcode-json' | 'atomcode-toml';

interface SourceBase {
  tool: ImportTool;
  /** Absolute path. */
  file: string;
  /** Relative to the project, or `~/...` for files in the home directory. */
  displayPath: string;
  scope: SourceScope;
  projectDir: string;
}

/** A configuration file, read; `readError` when it exists but could not be read. */
export interface ConfigFileSource extends SourceBase {
  format: ConfigFormat;
  text: string;
  readError?: string;
}

/** Cline: an executable named after its event in `.clinerules/hooks/`. */
export interface ClineScriptSource extends SourceBase {
  format: 'cline-script';
  tool: 'cline';
  /** The file name without extension (the event, when it is one). */
  event: string;
  extension: string;
  executable: boolean;
}

export type FoundSource = ConfigFileSource | ClineScriptSource;

export type ImportedHandler = CommandHandlerConfig | HttpHandlerConfig | PromptHandlerConfig | AgentHandlerConfig | McpToolHandlerConfig;

/** exact: same behaviour. changed: imported, but it behaves differently (see reasons). unsupported: not imported. */
export type ImportStatus = 'exact' | 'changed' | 'unsupported';

export interface ImportReportEntry {
  tool: ImportTool;
  /** The source file, as displayed. */
  file: string;
  /** The source entry in brief: event, matcher and what it runs. */
  original: string;
  sourceEvent: string;
  targetEvent?: HookEventName;
  matcher?: string;
  status: ImportStatus;
  /** changed: what behaves differently and why; unsupported: why it cannot carry over. */
  reasons: string[];
  /** Facts worth knowing that do not change behaviour. */
  notes: string[];
  /** Not added: identical to a hook imported earlier, or already in `.vscode/hooks.json`. */
  skipped?: 'duplicate' | 'already-present';
}

export interface ImportedHook {
  event: HookEventName;
  matcher?: string;
  handler: ImportedHandler;
  entry: ImportReportEntry;
}

export interface ImportedGroup {
  matcher?: string;
  hooks: ImportedHandler[];
}

/** The `.vscode/hooks.json` document the imported hooks make on their own. */
export interface ImportedDocument {
  hooks: Partial<Record<HookEventName, ImportedGroup[]>>;
}

export interface ImportResult {
  document: ImportedDocument;
  /** Every hook that carries over, in source order (duplicates included, marked `skipped`). */
  hooks: ImportedHook[];
  /** One entry per source hook (and per target event when one hook became several). */
  entries: ImportReportEntry[];
}

/** The outcome of one import, for people (formatImportReport) and for tools (--json). */
export interface ImportReport {
  projectDir: string;
  /** `.vscode/hooks.json`, as displayed. */
  target: string;
  dryRun: boolean;
  /** Where the import looked, as displayed. */
  searched: string[];
  sources: { tool: ImportTool; file: string; scope: SourceScope }[];
  entries: ImportReportEntry[];
  /** Hooks added to the target (or that would be, on a dry run). */
  added: number;
  written: boolean;
}
