import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AgentHook } from '../agent-hook';
import type { PayloadOf } from '../payloads';

interface Summary {
  sessionId: string;
  prompts: string[];
  tools: Record<string, number>;
  files: string[];
  endedAt: string;
  reason: string;
}

/**
 * AtomCode's SessionSummaryHook: at the end of a session it writes what happened (prompts,
 * tools, files touched); when that session is resumed it hands the summary back as context.
 */
export class SessionSummaryHook implements AgentHook {
  readonly name = 'SessionSummary';
  readonly description = 'Summarizes a session at its end and restores the summary on resume.';
  private readonly live = new Map<string, Omit<Summary, 'endedAt' | 'reason'>>();

  constructor(
    private readonly dir: string,
    private readonly redact: (text: string) => string = (text) => text,
  ) {}

  onSessionStart(p: PayloadOf<'SessionStart'>) {
    this.live.set(p.session_id, { sessionId: p.session_id, prompts: [], tools: {}, files: [] });
    if (p.source !== 'resume') return undefined;
    const previous = this.read(p.session_id);
    if (!previous) return undefined;
    const tools = Object.entries(previous.tools)
      .map(([t, n]) => `${t}×${n}`)
      .join(', ');
    return {
      additionalContext: `Summary of this session so far (ended ${previous.endedAt}, ${previous.reason}): prompts: ${previous.prompts.map((q) => JSON.stringify(q)).join('; ') || 'none'}. Tools: ${tools || 'none'}. Files touched: ${previous.files.join(', ') || 'none'}.`,
    };
  }

  onUserPromptSubmit(p: PayloadOf<'UserPromptSubmit'>) {
    // Redacted before the cut, which would leave part of a secret that no longer matches.
    this.entry(p.session_id).prompts.push(this.redact(p.prompt).slice(0, 200));
  }

  postToolUse(p: PayloadOf<'PostToolUse'>) {
    const s = this.entry(p.session_id);
    s.tools[p.tool_name] = (s.tools[p.tool_name] ?? 0) + 1;
    const file = p.tool_input.file_path;
    if (typeof file === 'string' && !s.files.includes(file)) s.files.push(file);
  }

  onSessionEnd(p: PayloadOf<'SessionEnd'>) {
    const s = this.live.get(p.session_id);
    if (!s) return;
    this.live.delete(p.session_id);
    const previous = this.read(p.session_id);
    const merged: Summary = {
      sessionId: s.sessionId,
      prompts: [...(previous?.prompts ?? []), ...s.prompts],
      tools: mergeCounts(previous?.tools ?? {}, s.tools),
      files: [...new Set([...(previous?.files ?? []), ...s.files])],
      endedAt: new Date().toISOString(),
      reason: p.reason,
    };
    mkdirSync(this.dir, { recursive: true });
    // Prompts may hold what no pattern recognises: readable by the owner only, like the audit log.
    writeFileSync(this.file(p.session_id), JSON.stringify(merged, null, 2), { mode: 0o600 });
  }

  private entry(sessionId: string) {
    let s = this.live.get(sessionId);
    if (!s) {
      s = { sessionId, prompts: [], tools: {}, files: [] };
      this.live.set(sessionId, s);
    }
    return s;
  }

  private file(sessionId: string): string {
    return path.join(this.dir, `${sessionId.replace(/[^A-Za-z0-9_.-]/g, '_')}.summary.json`);
  }

  private read(sessionId: string): Summary | undefined {
    try {
      return JSON.parse(readFileSync(this.file(sessionId), 'utf8')) as Summary;
    } catch {
      return undefined;
    }
  }
}

function mergeCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}
