import { lstatSync, readFileSync } from 'node:fs';
import type { SessionHooks } from '../core/agent/session-hooks';
import { errorMessage } from '../core/error-message';
import { configChangeSource, configChangeVerdict } from '../core/hooks/config-change';
import type { ConfigFileSnapshot } from './config-snapshot';

/** Beyond this, `new_content` is left out: a hook can read `file_path` itself. */
const MAX_CONTENT_BYTES = 1_000_000;

/** The file's text for `new_content`: a regular file of a sane size, never through a link the model may have planted. */
function contentOf(file: string): string | null | undefined {
  try {
    const stat = lstatSync(file);
    return stat.isFile() && stat.size <= MAX_CONTENT_BYTES ? readFileSync(file, 'utf8') : undefined;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? null : undefined;
  }
}

export interface ConfigChangeNoticesOptions {
  snapshot: ConfigFileSnapshot;
  hooks: SessionHooks;
  projectDir: string;
  /** One line for the person (stderr), redacted by the caller. */
  say: (line: string) => void;
  /** How a file is named in those lines. */
  display: (file: string) => string;
}

/**
 * The CLI's ConfigChange (docs/hooks.md#configchange): the run keeps the configuration it
 * started with, so the event only observes. Each time the run looks (after a tool call, at the
 * end of the turn), every configuration file with new content fires it once, and stderr says so.
 */
export class ConfigChangeNotices {
  private looking: Promise<void> = Promise.resolve();

  constructor(private readonly options: ConfigChangeNoticesOptions) {}

  /** Looks for new changes; the looks run one after the other, and the promise settles once this one ran. Ctrl-C cancels the hooks. */
  check(signal?: AbortSignal): Promise<void> {
    this.looking = this.looking.then(() => this.fire(signal));
    return this.looking;
  }

  private async fire(signal?: AbortSignal): Promise<void> {
    const { snapshot, hooks, projectDir, say, display } = this.options;
    for (const file of snapshot.takeNewChanges()) {
      const source = configChangeSource(file, { projectDirs: [projectDir] });
      const newContent = contentOf(file);
      say(
        `hookpilot: ${display(file)} changed during this session; ConfigChange hooks ran (${source}); this session keeps the configuration it started with\n`,
      );
      try {
        const fields = { source, file_path: file, ...(newContent === undefined ? {} : { new_content: newContent }) };
        const result = await hooks.dispatch('ConfigChange', fields, signal);
        const verdict = configChangeVerdict(result, source);
        if (verdict.blocked) {
          say(
            `hookpilot: ConfigChange hook "${verdict.hookName}" blocked the change to ${display(file)}: ${verdict.reason} (no session applies a change mid-run; the next one reads the file as it is then)\n`,
          );
        }
        for (const warning of verdict.warnings) say(`hookpilot: warning: ConfigChange ${warning}\n`);
      } catch (error) {
        say(`hookpilot: warning: the ConfigChange hooks could not run: ${errorMessage(error)}\n`);
      }
    }
  }
}
