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
  const wanted = setting.split('.');
  const root: Tree = Object.create(null);
  // The objects of the tree copied from the file's: each is copied once, then added to in place.
  const copies = new WeakSet<Tree>([root]);
  for (const key of Object.keys(settings)) {
    const segments = key.split('.');
    // Only a key on the setting's path (`hookpilot`) or below it (`hookpilot.permissions.deny`)
    // can reach its place: any other only makes objects beside it.
    if (segments.some((segment, i) => i < wanted.length && segment !== wanted[i])) continue;
    const last = segments.pop()!;
    let node: Tree | undefined = root;
    for (const segment of segments) {
      const child: unknown = Object.hasOwn(node, segment) ? node[segment] : undefined;
      if (child !== undefined && !isTree(child)) {
        node = undefined;
        break;
      }
      if (child !== undefined && copies.has(child)) {
        node = child;
        continue;
      }
      const copy: Tree = Object.assign(Array.isArray(child) ? [] : Object.create(null), child);
      copies.add(copy);
      node[segment] = copy;
      node = copy;
    }
    if (node) node[last] = settings[key];
  }
  let value: unknown = root;
  for (const segment of wanted) value = isTree(value) && Object.hasOwn(value, segment) ? value[segment] : undefined;
  return value;
}
