/**
 * Text VS Code would draw as more than text, kept as text. Notifications, an input box's prompt
 * and its validation message turn `[label](command:...)` (or `https:`, `file:`) into a link that
 * runs the command, arguments and all, on one click; prompts, validation messages and quick pick
 * items draw `$(name)` as an icon (a check mark, a shield). Much of what Hookpilot shows there
 * holds text the model, an MCP server or a hook wrote.
 */

/** A space after the bracket: VS Code's link syntax allows none, so the text stays text. */
export const inertLinks = (text: string): string => text.replace(/\]\(/g, '] (');

/** `$(name)` escaped as VS Code escapes it (`\$(name)`): drawn as the text `$(name)`, not as an icon. */
export const inertIcons = (text: string): string => text.replace(/\$\((?=[\w-]+(?:~[\w-]+)?\))/g, '\\$(');

/** Both: for the places that draw links and icons. */
export const inertText = (text: string): string => inertIcons(inertLinks(text));
