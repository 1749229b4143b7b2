/**
 * VS Code turns `[label](command:...)` in a notification into a link that runs the command. A
 * hook's error or reason can hold text the model wrote: a space after the bracket keeps it text.
 */
export const inertLinks = (text: string): string => text.replace(/\]\(/g, '] (');
