type Tree = Record<string, unknown>;

function isTree(value: unknown): value is Tree {
  return typeof value === 'object' && value !== null;
}

/**
 * A setting's value in a parsed settings file, as VS Code reads it (toValuesTree): the file's
 * keys, in order, are placed in one tree by their dotted names, so `"hookpilot.permissions"`
 * and `"hookpilot": { "permissions": ... }` are the same setting, and a later key replaces what
 * an earlier one put at its place. A dotted key under a place that holds a value other than an
 * object is ignored, as VS Code ignores it. The file's objects are copied, never changed.
 */
export function settingValue(settings: Readonly<Record<string, unknown>>, setting: string): unknown {
  const [head] = setting.split('.');
  const root: Tree = Object.create(null);
  // Only keys under the setting's first segment can reach its place.
  for (const key of Object.keys(settings).filter((k) => k === head || k.startsWith(`${head}.`))) {
    const segments = key.split('.');
    const last = segments.pop()!;
    let node: Tree | undefined = root;
    for (const segment of segments) {
      const child: unknown = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (child !== undefined && !isTree(child)) {
        node = undefined;
        break;
      }
      const copy: Tree = Object.assign(Array.isArray(child) ? [] : Object.create(null), child);
      node[segment] = copy;
      node = copy;
    }
    if (node) node[last] = settings[key];
  }
  let value: unknown = root;
  for (const segment of setting.split('.')) value = isTree(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
  return value;
}
