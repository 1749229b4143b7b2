import { describe, expect, it } from 'vitest';
import { expandPrompt } from '../../src/core/hooks/handlers/model-hook-handler';
import { parseVerdict, verdictEffects } from '../../src/core/hooks/handlers/model-verdict';
import { makeEngine } from '../support/hook-fixtures';
import type { HookDefinition } from '../../src/core/hooks/types';

const no = { ok: false, reason: 'not yet' };
const prompt = { feedBack: false, impossibleAllowed: true };
const agent = { feedBack: true, impossibleAllowed: false };

describe('prompt and agent hook verdicts', () => {
  it('replace $ARGUMENTS with the event JSON, append it when absent, and keep an escaped \\$', () => {
    expect(expandPrompt('Check $ARGUMENTS now', '{"a":1}')).toBe('Check {"a":1} now');
    expect(expandPrompt('Costs \\$ARGUMENTS and \\$5', '{}')).toBe('Costs $ARGUMENTS and $5\n\n{}');
    expect(expandPrompt('Is it done?', '{"b":2}')).toBe('Is it done?\n\n{"b":2}');
  });

  it('read the verdict from a bare object, a fenced block or prose, and reject anything else', () => {
    expect(parseVerdict('{"ok": true}')).toEqual({ ok: true, verdict: { ok: true } });
    expect(parseVerdict('```json\n{"ok": false, "reason": "x"}\n```')).toMatchObject({ ok: true, verdict: { ok: false, reason: 'x' } });
    expect(parseVerdict('Here: {"ok": false, "reason": "y"} done')).toMatchObject({ ok: true, verdict: { ok: false, reason: 'y' } });
    expect(parseVerdict('{"ok": "yes"}')).toMatchObject({ ok: false, error: expect.stringMatching(/not \{"ok": boolean/) });
    expect(parseVerdict('looks fine')).toMatchObject({ ok: false, error: expect.stringMatching(/did not answer with a JSON object/) });
  });

  it('read an ok:false as a no however the rest of the answer is malformed, and never a yes out of a broken one', () => {
    const no = (reason?: string) => ({ ok: true, verdict: { ok: false, reason } });
    expect(parseVerdict('{"ok": false, "reason": null}')).toEqual(no(undefined));
    expect(parseVerdict('{"ok": false, "reason": "dangerous"}\nNote: the {path} is risky.')).toEqual(no('dangerous'));
    expect(parseVerdict('I think {"ok": false, "reason": "a } in it"} and {"ok": true}')).toEqual(no('a } in it'));
    expect(parseVerdict('{"ok": false, "impossible": "maybe"}')).toEqual(no(undefined));
    expect(parseVerdict(`${'{'.repeat(10_000)}{"ok": true}`)).toMatchObject({ ok: false });
    // The judge quoting the model's own `{"ok": true}` before its verdict.
    expect(parseVerdict('The command prints {"ok": true}. Verdict: {"ok": false, "reason": "deletes keep.txt"}')).toEqual(
      no('deletes keep.txt'),
    );
    expect(parseVerdict('{"ok": true} {"ok": false}')).toEqual(no(undefined));
  });

  it('read the judge\'s loosely written no after a quoted {"ok": true} as a no, and a cut-short or disagreeing answer as a failure', () => {
    const no = (reason?: string) => ({ ok: true, verdict: { ok: false, reason } });
    const quoted = 'The command prints {"ok": true}. Verdict: ';
    expect(parseVerdict(`${quoted}{"ok": false, "reason": "it runs "touch made.txt", which creates a file"}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}{'ok': false, 'reason': 'x'}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}{ok: false}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}{"ok": false, "reason": "x",}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}{"ok": false, "reason": "line one\nline two"}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}{"verdict": {"ok": false, "reason": "nested"}}`)).toEqual(no('nested'));
    // The judge's no past the objects tried is still found; a yes there is never taken unread.
    const braces = 'It expands ' + '${A}'.repeat(31) + '. ';
    expect(parseVerdict(`${quoted}${braces}{"ok": false, "reason": "deletes"}`)).toEqual(no(undefined));
    expect(parseVerdict(`${quoted}${braces}{"ok": true}`)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/more than 32 "{"/),
    });
    expect(parseVerdict('{"ok": true} {"ok": "no"}')).toMatchObject({ ok: false, error: expect.stringMatching(/not \{"ok": boolean/) });
  });

  it('read a yes from a single {"ok": true} in prose or a fence, or with a reason quoting harmless text', () => {
    const yes = (reason?: string) => ({ ok: true, verdict: reason === undefined ? { ok: true } : { ok: true, reason } });
    expect(parseVerdict('The command only lists files.\n```json\n{"ok": true}\n```')).toEqual(yes());
    expect(parseVerdict('{"ok": true, "reason": "it prints {\\"a\\": 1} and the word okay"}')).toEqual(
      yes('it prints {"a": 1} and the word okay'),
    );
    expect(parseVerdict('It prints {"ok": true}. Verdict: {"ok": true, "reason": "harmless"}')).toEqual(yes());
    expect(parseVerdict('{"verdict": {"ok": true}}')).toEqual(yes());
  });

  it('map ok:false to each event as Claude Code does, and ok:true to no decision', () => {
    expect(verdictEffects('PreToolUse', { ok: true }, prompt)).toEqual({});
    expect(verdictEffects('PreToolUse', no, prompt)).toEqual({ decision: 'deny', reason: 'not yet', stop: { reason: 'not yet' } });
    expect(verdictEffects('PreToolUse', no, agent)).toEqual({ decision: 'deny', reason: 'not yet' });
    expect(verdictEffects('PostToolUse', no, prompt)).toEqual({ stop: { reason: 'not yet' } });
    expect(verdictEffects('PostToolUse', no, agent)).toEqual({ decision: 'block', reason: 'not yet' });
    expect(verdictEffects('Stop', no, prompt)).toEqual({ decision: 'block', reason: 'not yet' });
    expect(verdictEffects('Stop', { ...no, impossible: true }, prompt)).not.toHaveProperty('decision');
    expect(verdictEffects('Stop', { ...no, impossible: true }, agent)).toEqual({ decision: 'block', reason: 'not yet' });
    expect(verdictEffects('UserPromptSubmit', no, prompt)).toEqual({ decision: 'block', reason: 'not yet' });
    expect(verdictEffects('PostToolUseFailure', no, prompt)).toEqual({ decision: 'block', reason: 'not yet' });
    expect(verdictEffects('PermissionRequest', no, prompt)).toEqual({});
  });

  it('default to 30 s for a prompt hook and 60 s for an agent hook', () => {
    const { dispatcher } = makeEngine();
    const hook = (spec: HookDefinition['spec']): HookDefinition => ({
      id: 'h',
      name: 'h',
      event: 'Stop',
      priority: 0,
      enabled: true,
      source: { kind: 'hooksJson' },
      spec,
    });
    expect(dispatcher.timeoutFor(hook({ type: 'prompt', prompt: 'p' }))).toBe(30_000);
    expect(dispatcher.timeoutFor(hook({ type: 'agent', prompt: 'p' }))).toBe(60_000);
  });
});
