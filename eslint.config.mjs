import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

const NODE_MODULES = builtinModules.flatMap((name) => [name, `node:${name}`]);
const ERROR_HELPERS = [
  {
    selector: "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.property.name='message']",
    message: 'Use errorMessage() from src/core/error-message.ts.',
  },
  {
    selector:
      "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][alternate.type='NewExpression'][alternate.callee.name='Error']",
    message: 'Use toError() from src/core/error-message.ts.',
  },
];
const dirPattern = (dirs) => `^\\.\\.?/(.*/)?(${dirs.join('|')})(/|$)`;

/** The imports a layer must not make: vscode, Node modules, a layer above it, runtime code of a layer it may only see types of. */
function layer(files, name, { noVscode, noNode, up, typesOnly = [] }) {
  const paths = [
    ...(noVscode ? [{ name: 'vscode', message: `${name} must not import vscode: the host API enters through small interfaces.` }] : []),
    ...(noNode ? NODE_MODULES.map((n) => ({ name: n, message: `${name} runs in a browser bundle: no Node module.` })) : []),
  ];
  const patterns = [{ regex: dirPattern(up), message: `${name} must not import ${up.join(', ')}: imports point down.` }];
  if (typesOnly.length > 0) {
    const message = `${name} may import only types from ${typesOnly.join(', ')}; runtime helpers come through src/shared.`;
    patterns.push({ regex: dirPattern(typesOnly), allowTypeImports: true, message });
  }
  return { files, rules: { '@typescript-eslint/no-restricted-imports': ['error', { paths, patterns }] } };
}

const NOTIFICATIONS = {
  selector: 'MemberExpression[property.name=/^show(Information|Warning|Error)Message$/]',
  message: 'Use showInformation, showWarning or showError from src/extension/notifications.ts.',
};
// A quick input's prompt, validation message and items draw links and icons (src/extension/quick-inputs.ts).
const QUICK_INPUTS = {
  selector: "MemberExpression[object.property.name='window'][property.name=/^(show|create)(InputBox|QuickPick)$/]",
  message: 'Use showInputBox or showQuickPick from src/extension/quick-inputs.ts.',
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.tools/**', 'out/**', 'test-results/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
        TextEncoder: 'readonly',
        TextDecoder: 'readonly',
        structuredClone: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        queueMicrotask: 'readonly',
        __dirname: 'readonly',
        require: 'readonly',
        module: 'writable',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  // Imports point down (docs/architecture.md, "Layers"); test/unit/layers.test.ts checks the same on resolved paths.
  layer(['src/core/**/*.ts'], 'src/core', { noVscode: true, noNode: false, up: ['extension', 'cli', 'shared', 'webview-ui'] }),
  layer(['src/shared/**/*.ts'], 'src/shared', { noVscode: true, noNode: true, up: ['extension', 'cli', 'webview-ui'] }),
  layer(['src/cli/**/*.ts'], 'src/cli', { noVscode: true, noNode: false, up: ['extension', 'webview-ui'] }),
  layer(['src/extension/**/*.ts'], 'src/extension', { noVscode: false, noNode: false, up: ['cli', 'webview-ui'] }),
  {
    // One helper for a thrown value's message, and one for it as an Error (src/core/error-message.ts), not a copy per file.
    files: ['src/**/*.ts'],
    ignores: ['src/core/error-message.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ERROR_HELPERS] },
  },
  {
    // A notification may hold the model's text, and VS Code runs `[x](command:...)` links in it (src/extension/notifications.ts).
    files: ['src/extension/**/*.ts'],
    ignores: ['src/extension/notifications.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...ERROR_HELPERS, NOTIFICATIONS, QUICK_INPUTS],
    },
  },
  {
    // The wrapper itself.
    files: ['src/extension/quick-inputs.ts'],
    rules: { 'no-restricted-syntax': ['error', ...ERROR_HELPERS, NOTIFICATIONS] },
  },
  layer(['webview-ui/**/*.ts'], 'webview-ui', { noVscode: true, noNode: true, up: ['src/extension', 'src/cli'], typesOnly: ['src/core'] }),
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
