import { beforeEach, describe, expect, it } from 'vitest';
import { showInputBox, showQuickPick } from '../../../src/extension/quick-inputs';
import { stub, type ShownInputBox, type ShownPickItem, type ShownPickOptions } from '../../support/vscode-stub';

const LINK = '[Open](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)';
const INERT_LINK = '[Open] (command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%22%7D)';

beforeEach(() => stub.reset());

describe('showInputBox', () => {
  it('shows links as text everywhere, icons as text where VS Code draws them, and so does every validation message', async () => {
    let shown: ShownInputBox | undefined;
    stub.state.answerInputBox = (options) => {
      shown = options;
      return 'typed';
    };
    const answer = await showInputBox({
      title: `$(check) ${LINK}`,
      prompt: `$(shield) ${LINK}`,
      placeHolder: LINK,
      validateInput: (value) =>
        value === 'sync' ? `$(error) ${LINK}` : value === 'object' ? { message: LINK, severity: 3 } : Promise.resolve(LINK),
    });
    expect(answer).toBe('typed');
    // A title and a placeholder are drawn as plain text: an icon there is text already.
    expect([shown?.title, shown?.prompt, shown?.placeHolder]).toEqual([`$(check) ${INERT_LINK}`, `\\$(shield) ${INERT_LINK}`, INERT_LINK]);
    expect(shown?.validateInput?.('sync')).toBe(`\\$(error) ${INERT_LINK}`);
    expect(shown?.validateInput?.('object')).toEqual({ message: INERT_LINK, severity: 3 });
    await expect(shown?.validateInput?.('async')).resolves.toBe(INERT_LINK);
  });
});

describe('showQuickPick', () => {
  it("shows each item's label, description and detail as text and returns the caller's own item", async () => {
    let shown: { items: ShownPickItem[]; options: ShownPickOptions } | undefined;
    stub.state.answerQuickPick = (items, options) => {
      shown = { items, options };
      return items[1]?.label;
    };
    const items = [
      { label: 'plain', id: 1 },
      { label: `$(pass-filled) ${LINK}`, description: `$(lock) ${LINK}`, detail: `\\$(x) $(not an icon)`, id: 2 },
    ];
    const picked = await showQuickPick(items, { title: LINK, placeHolder: LINK });
    expect(picked).toBe(items[1]);
    expect(shown?.items[1]).toMatchObject({
      label: `\\$(pass-filled) ${INERT_LINK}`,
      description: `\\$(lock) ${INERT_LINK}`,
      // Escaped once more, VS Code draws it as it was written; what is no icon keeps its text.
      detail: `\\\\$(x) $(not an icon)`,
    });
    expect(shown?.options).toMatchObject({ title: INERT_LINK, placeHolder: INERT_LINK });
  });
});
