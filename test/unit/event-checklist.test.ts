import { describe, expect, it } from 'vitest';
import { hooksDocSection } from '../support/hooks-doc';
import { EVENT_ALIASES, EVENT_INFO, HOOK_EVENTS, type HookEventName } from '../../src/core/hooks/events';
import { convertClaudeHooks } from '../../src/core/import/claude';
import { EVENT_INFO as CATALOGUE_INFO, HOOK_EVENTS as CATALOGUE_EVENTS } from '../../src/shared/event-catalog';

// CONTRIBUTING's "Add a hook event" checklist, checked over the one event list (HOOK_EVENTS):
// an event that misses one of the places it must be added fails here by name. tsc checks
// EVENT_INFO, the payload schemas and AGENT_HOOK_METHODS; test/webview/sample-payload.test.ts the samples.

/** The rows of the first Markdown table in `text`, as trimmed cells, header and rule left out. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const first = lines.findIndex((line) => line.startsWith('|'));
  const end = lines.findIndex((line, i) => i > first && !line.startsWith('|'));
  return lines.slice(first + 2, end < 0 ? undefined : end).map((line) =>
    line
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim()),
  );
}

const eventRows = new Map(tableRows(hooksDocSection('## Events')).map((cells) => [cells[0], cells] as const));
const yesNo = (flag: boolean) => (flag ? 'yes' : 'no');

describe('every hook event is wired in everywhere', () => {
  it('the Events table of docs/hooks.md lists exactly the events of HOOK_EVENTS, in their order', () => {
    expect([...eventRows.keys()]).toEqual([...HOOK_EVENTS]);
  });

  it('the webview event catalogue (src/shared/event-catalog.ts) is the core one', () => {
    expect(CATALOGUE_EVENTS).toBe(HOOK_EVENTS);
    expect(CATALOGUE_INFO).toBe(EVENT_INFO);
  });

  it.each(HOOK_EVENTS)('%s: its docs/hooks.md Events row says what EVENT_INFO says (kind, matcher, exit 2, plain stdout)', (event) => {
    const info = EVENT_INFO[event];
    const [, kind, , matcher, exit2, plainStdout] = eventRows.get(event) ?? [];
    expect({ kind, matcher, exit2, plainStdout }).toEqual({
      kind: info.kind,
      matcher: info.matchField ? `\`${info.matchField}\`` : '(none)',
      exit2: yesNo(info.exit2Blocks),
      plainStdout: yesNo(info.plainStdoutIsContext),
    });
  });

  it.each(HOOK_EVENTS)('%s: docs/hooks.md describes its payload (Event payloads and what hooks can do)', (event) => {
    expect(hooksDocSection('### Event payloads and what hooks can do')).toMatch(new RegExp(`^\\*\\*${event}\\*\\*`, 'm'));
  });

  it.each(HOOK_EVENTS)('%s: a Claude Code settings hook on it is imported as a hook on it (src/core/import/claude.ts)', (event) => {
    const [conversion] = convertClaudeHooks(
      { [event]: [{ hooks: [{ type: 'command', command: 'true' }] }] },
      { fileNotes: [], disabled: false },
    );
    expect(conversion.unsupported).toBeUndefined();
    expect(conversion.target?.event).toBe(event);
  });

  it('the Aliases table of docs/hooks.md is EVENT_ALIASES, alias for alias', () => {
    const documented: Record<string, HookEventName> = {};
    for (const [canonical, aliases] of tableRows(hooksDocSection('### Aliases'))) {
      for (const alias of aliases.matchAll(/`([^`]+)`/g)) documented[alias[1]] = canonical as HookEventName;
    }
    expect(documented).toEqual({ ...EVENT_ALIASES });
  });
});
