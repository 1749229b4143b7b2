import * as vscode from 'vscode';
import { inertLinks, inertText } from './inert-text';

/**
 * VS Code's input box and quick pick, with every string they show kept as text (inert-text.ts):
 * a prompt, a validation message and a pick's label, description and detail are drawn with
 * links and icons, and a title or placeholder may hold the same server's or model's text. Every
 * quick input of the extension goes through here, so no caller has to remember which is which.
 */

type Problem = string | vscode.InputBoxValidationMessage | undefined | null;

function inertProblem(problem: Problem): Problem {
  if (typeof problem === 'string') return inertText(problem);
  return problem ? { ...problem, message: inertText(problem.message) } : problem;
}

function isThenable(value: unknown): value is Thenable<Problem> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

export function showInputBox(options: vscode.InputBoxOptions, token?: vscode.CancellationToken): Thenable<string | undefined> {
  const { title, prompt, placeHolder, validateInput } = options;
  return vscode.window.showInputBox(
    {
      ...options,
      title: title && inertLinks(title),
      prompt: prompt && inertText(prompt),
      placeHolder: placeHolder && inertLinks(placeHolder),
      validateInput:
        validateInput &&
        ((value) => {
          const problem = validateInput(value);
          return isThenable(problem) ? Promise.resolve(problem).then(inertProblem) : inertProblem(problem);
        }),
    },
    token,
  );
}

/** One pick among `items`; the item returned is the caller's own, not the copy that was shown. */
export async function showQuickPick<T extends vscode.QuickPickItem>(
  items: readonly T[],
  options: vscode.QuickPickOptions & { canPickMany?: false } = {},
  token?: vscode.CancellationToken,
): Promise<T | undefined> {
  const shown = items.map((item) => ({
    ...item,
    label: inertText(item.label),
    description: item.description && inertText(item.description),
    detail: item.detail && inertText(item.detail),
  }));
  const { title, placeHolder } = options;
  const picked = await vscode.window.showQuickPick(
    shown,
    { ...options, title: title && inertLinks(title), placeHolder: placeHolder && inertLinks(placeHolder) },
    token,
  );
  return picked && items[shown.indexOf(picked)];
}
