import { afterEach, describe, expect, it } from 'vitest';
import { DiagnosticSeverity, Range, stub, Uri, type FakeDiagnosticCollection } from '../../support/vscode-stub';
import { startHost, until, type HostHarness } from './extension-harness';

const HOOKS_JSON = `// hooks with mistakes a schema cannot see
{
  "hooks": {
    "PreToolUse": [
      { "matcher": "Bash(", "hooks": [{ "type": "command", "command": "true" }] }
    ],
    "PreToolUze": [{ "hooks": [{ "type": "command", "command": "true" }] }],
    "PostToolUse": [
      { "hooks": [{ "type": "command", "command": "./hooks/missing.sh" }] },
      { "hooks": [{ "type": "command", "command": "./hooks/plain.py" }] }
    ]
  }
}
`;

let h: HostHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

/** The range of the first occurrence of `needle` in `text` (0-based, end exclusive). */
function rangeOf(text: string, needle: string): { start: [number, number]; end: [number, number] } {
  const offset = text.indexOf(needle);
  if (offset < 0) throw new Error(`"${needle}" is not in the text`);
  const at = (o: number): [number, number] => {
    const before = text.slice(0, o).split('\n');
    return [before.length - 1, before[before.length - 1].length];
  };
  return { start: at(offset), end: at(offset + needle.length) };
}

const plain = (r: Range) => ({ start: [r.start.line, r.start.character], end: [r.end.line, r.end.character] });

function collection(): FakeDiagnosticCollection {
  const found = stub.state.diagnostics.find((d) => d.name === 'hookpilot');
  if (!found) throw new Error('no hookpilot diagnostics collection');
  return found;
}

describe('hooks.json diagnostics', () => {
  it('puts what the schema cannot see at its exact place: bad regex, unknown event, missing and non-executable scripts', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS_JSON, 'hooks/plain.py': 'print("hi")\n' });
    const file = h.workspace.file('.vscode/hooks.json');
    const diagnostics = await until(() => collection().entries.get(file), 'diagnostics for hooks.json');
    const byCode = new Map(diagnostics.map((d) => [d.code, d]));

    expect(plain(byCode.get('invalid-matcher')?.range as Range)).toEqual(rangeOf(HOOKS_JSON, '"Bash("'));
    expect(byCode.get('invalid-matcher')?.severity).toBe(DiagnosticSeverity.Error);
    expect(plain(byCode.get('unknown-event')?.range as Range)).toEqual(rangeOf(HOOKS_JSON, '"PreToolUze"'));
    expect(byCode.get('unknown-event')?.message).toContain('PreToolUse');
    expect(plain(byCode.get('script-missing')?.range as Range)).toEqual(rangeOf(HOOKS_JSON, '"./hooks/missing.sh"'));
    expect(plain(byCode.get('script-not-executable')?.range as Range)).toEqual(rangeOf(HOOKS_JSON, '"./hooks/plain.py"'));
    expect(diagnostics.every((d) => d.source === 'Hookpilot')).toBe(true);
  });

  it('puts a timeout over 24 h and a lookahead matcher under their values, as errors, while the guard still loads', async () => {
    const text = `{
  "hooks": {
    "PreToolUse": [
      { "hooks": [{ "type": "command", "command": "true", "name": "guard", "onFailure": "block", "timeout": 2592000 }] },
      { "matcher": "Bash(?!Output)", "hooks": [{ "type": "command", "command": "true" }] }
    ]
  }
}
`;
    h = await startHost({ '.vscode/hooks.json': text });
    const file = h.workspace.file('.vscode/hooks.json');
    const diagnostics = await until(
      () => collection().entries.get(file)?.length === 2 && collection().entries.get(file),
      'the two problems',
    );
    const byCode = new Map(diagnostics.map((d) => [d.code, d]));
    expect(plain(byCode.get('invalid-value')?.range as Range)).toEqual(rangeOf(text, '2592000'));
    expect(byCode.get('invalid-value')).toMatchObject({
      severity: DiagnosticSeverity.Error,
      message: expect.stringContaining('over the maximum of 86400 s'),
    });
    expect(plain(byCode.get('invalid-matcher')?.range as Range)).toEqual(rangeOf(text, '"Bash(?!Output)"'));
    const guard = h.root.engineHost.engine.registry.current().states.find((s) => s.hook.name === 'guard');
    expect(guard?.hook.timeoutMs).toBe(86_400_000);
  });

  it('reloads when hooks.json is saved: fixed problems disappear', async () => {
    h = await startHost({ '.vscode/hooks.json': HOOKS_JSON, 'hooks/plain.py': 'print("hi")\n' });
    const file = h.workspace.file('.vscode/hooks.json');
    await until(() => collection().entries.get(file)?.length === 4, 'the four problems');
    stub.saveDocument(
      file,
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'true', name: 'fixed' }] }] } }),
    );
    stub.state.watchers[0].changed.fire(Uri.file(file));
    await until(
      () => collection().entries.size === 0 && h?.root.engineHost.engine.registry.current().states.some((s) => s.hook.name === 'fixed'),
      'the reload after saving',
    );
  });
});
