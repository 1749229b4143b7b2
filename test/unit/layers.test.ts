import { builtinModules } from 'node:module';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Import direction, checked on resolved paths (docs/architecture.md, "Layers"). ESLint's
// no-restricted-imports gives the same answer in the editor; this test is the one that cannot be
// fooled by how a relative path is spelled.

const root = path.resolve(__dirname, '../..');
type Layer = 'core' | 'shared' | 'cli' | 'extension' | 'webview';
const LAYER_DIRS: Record<Layer, string> = {
  core: 'src/core',
  shared: 'src/shared',
  cli: 'src/cli',
  extension: 'src/extension',
  webview: 'webview-ui',
};

/** Layers a layer must not import at all (`forbidden`) or only for types (`typesOnly`). */
const RULES: Record<Layer, { forbidden: Layer[]; typesOnly: Layer[]; vscode: boolean; node: boolean }> = {
  core: { forbidden: ['shared', 'cli', 'extension', 'webview'], typesOnly: [], vscode: false, node: true },
  shared: { forbidden: ['cli', 'extension', 'webview'], typesOnly: [], vscode: false, node: false },
  cli: { forbidden: ['extension', 'webview'], typesOnly: [], vscode: false, node: true },
  extension: { forbidden: ['cli', 'webview'], typesOnly: [], vscode: true, node: true },
  webview: { forbidden: ['cli', 'extension'], typesOnly: ['core'], vscode: false, node: false },
};

const NODE_MODULES = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

interface ImportRef {
  specifier: string;
  typeOnly: boolean;
}

/** Every module a file names: import/export declarations, `import()`, `require()`. */
function importsOf(fileName: string, text: string): ImportRef[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.ES2022, true);
  const refs: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    const declaration = ts.isImportDeclaration(node) || ts.isExportDeclaration(node);
    if (declaration && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly: isTypeOnly(node) });
    } else if (ts.isCallExpression(node) && node.arguments.length > 0) {
      const isImport = node.expression.kind === ts.SyntaxKind.ImportKeyword;
      const isRequire = ts.isIdentifier(node.expression) && node.expression.text === 'require';
      const arg = node.arguments[0];
      if (isImport || isRequire) refs.push({ specifier: ts.isStringLiteralLike(arg) ? arg.text : '<computed>', typeOnly: false });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const expr = node.moduleReference.expression;
      refs.push({ specifier: ts.isStringLiteral(expr) ? expr.text : '<computed>', typeOnly: node.isTypeOnly });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return refs;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : undefined;
    return node.isTypeOnly || (named !== undefined && named.every((e) => e.isTypeOnly));
  }
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import runs the module
  if (clause.isTypeOnly) return true;
  if (clause.name || !clause.namedBindings || ts.isNamespaceImport(clause.namedBindings)) return false;
  return clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly);
}

function layerOf(absolute: string): Layer | undefined {
  const rel = path.relative(root, absolute).split(path.sep).join('/');
  return (Object.keys(LAYER_DIRS) as Layer[]).find((layer) => rel === LAYER_DIRS[layer] || rel.startsWith(`${LAYER_DIRS[layer]}/`));
}

/** The rule a file's import breaks, or undefined. */
function violation(layer: Layer, fileName: string, ref: ImportRef): string | undefined {
  const rule = RULES[layer];
  const { specifier } = ref;
  if (specifier === '<computed>') return 'a computed import() or require() cannot be checked';
  if (specifier === 'vscode' && !rule.vscode) return `${LAYER_DIRS[layer]} must not import vscode`;
  if (NODE_MODULES.has(specifier) && !rule.node) return `${LAYER_DIRS[layer]} runs in a browser: no Node module`;
  if (!specifier.startsWith('.')) return undefined;
  const target = layerOf(path.resolve(path.dirname(fileName), specifier));
  if (!target || target === layer) return undefined;
  if (rule.forbidden.includes(target)) return `${LAYER_DIRS[layer]} must not import ${LAYER_DIRS[target]}`;
  if (rule.typesOnly.includes(target) && !ref.typeOnly) return `${LAYER_DIRS[layer]} may import only types from ${LAYER_DIRS[target]}`;
  return undefined;
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(ts|tsx|mts|cts|js|mjs)$/.test(p) && !p.endsWith('.d.ts') ? [p] : [];
  });
}

describe('import direction', () => {
  it.each(Object.keys(LAYER_DIRS) as Layer[])('%s imports only what its layer may', (layer) => {
    const sources = files(path.join(root, LAYER_DIRS[layer]));
    expect(sources.length).toBeGreaterThan(0);
    const offenders = sources.flatMap((file) =>
      importsOf(file, readFileSync(file, 'utf8')).flatMap((ref) => {
        const why = violation(layer, file, ref);
        return why ? [`${path.relative(root, file)}: '${ref.specifier}': ${why}`] : [];
      }),
    );
    expect(offenders).toEqual([]);
  });
});

describe('the checker itself', () => {
  const coreFile = path.join(root, 'src/core/agent/example.ts');
  const webviewFile = path.join(root, 'webview-ui/manager/example.ts');
  const refsOf = (text: string) => importsOf('x.ts', text);

  it('sees every way of naming a module', () => {
    const text = [
      "import a from '../../extension/a';",
      "import type { B } from './b';",
      "import { type C } from './c';",
      "export { d } from './d';",
      "import './e';",
      "const f = await import('./f');",
      "const g = require('./g');",
      "import h = require('./h');",
      'const i = require(name);',
    ].join('\n');
    expect(refsOf(text)).toEqual([
      { specifier: '../../extension/a', typeOnly: false },
      { specifier: './b', typeOnly: true },
      { specifier: './c', typeOnly: true },
      { specifier: './d', typeOnly: false },
      { specifier: './e', typeOnly: false },
      { specifier: './f', typeOnly: false },
      { specifier: './g', typeOnly: false },
      { specifier: './h', typeOnly: false },
      { specifier: '<computed>', typeOnly: false },
    ]);
  });

  it('refuses the core reaching up, however the path is spelled', () => {
    const upward = ['../../extension/log', '../../shared/chat-items', '../hooks/../../cli/main', '../../../webview-ui/chat/main', 'vscode'];
    for (const specifier of upward) {
      expect(violation('core', coreFile, { specifier, typeOnly: false }), specifier).toBeDefined();
    }
    expect(violation('core', coreFile, { specifier: '../hooks/events', typeOnly: false })).toBeUndefined();
    expect(violation('core', coreFile, { specifier: 'node:fs', typeOnly: false })).toBeUndefined();
  });

  it('keeps Node and core runtime code out of the webviews, types are fine', () => {
    for (const specifier of ['node:fs', 'fs', 'child_process', 'vscode']) {
      expect(violation('webview', webviewFile, { specifier, typeOnly: false }), specifier).toBeDefined();
    }
    expect(violation('webview', webviewFile, { specifier: '../../src/core/audit/permission-text', typeOnly: false })).toBeDefined();
    expect(violation('webview', webviewFile, { specifier: '../../src/core/audit/records', typeOnly: true })).toBeUndefined();
    expect(violation('webview', webviewFile, { specifier: '../../src/shared/chat-items', typeOnly: false })).toBeUndefined();
  });
});
