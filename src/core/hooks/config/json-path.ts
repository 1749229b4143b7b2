/** A path into a JSON document: property names and array indexes. */
export type JsonPath = readonly (string | number)[];

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `hooks.PreToolUse[0].hooks[1]`, or `servers["my server"]` for a name that is not an identifier. */
export function formatJsonPath(path: JsonPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (IDENTIFIER.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

const SEGMENT = /(?:^|\.)([A-Za-z_$][A-Za-z0-9_$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** formatJsonPath's text back into its segments; undefined for text it cannot have written. */
export function parseJsonPath(text: string): JsonPath | undefined {
  const segments: (string | number)[] = [];
  let at = 0;
  while (at < text.length) {
    SEGMENT.lastIndex = at;
    const match = SEGMENT.exec(text);
    if (!match) return undefined;
    if (match[1] !== undefined) segments.push(match[1]);
    else if (match[2] !== undefined) segments.push(Number(match[2]));
    else {
      const name = quotedName(match[3]);
      if (name === undefined) return undefined;
      segments.push(name);
    }
    at = SEGMENT.lastIndex;
  }
  return segments;
}

/** A bad escape (`"\q"`) is text formatJsonPath never writes, not a reason to throw. */
function quotedName(quoted: string): string | undefined {
  try {
    return JSON.parse(quoted) as string;
  } catch {
    return undefined;
  }
}
