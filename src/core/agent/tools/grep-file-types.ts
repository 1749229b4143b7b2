import picomatch from 'picomatch';

/** ripgrep's `--type` names most used in code search, with the file-name globs rg gives them. */
const FILE_TYPES: Record<string, string[]> = {
  c: ['*.c', '*.h'],
  cpp: ['*.cpp', '*.cc', '*.cxx', '*.hpp', '*.hh', '*.hxx', '*.h', '*.inl'],
  cs: ['*.cs'],
  css: ['*.css', '*.scss', '*.sass', '*.less'],
  go: ['*.go'],
  html: ['*.html', '*.htm', '*.xhtml'],
  java: ['*.java'],
  js: ['*.js', '*.jsx', '*.mjs', '*.cjs', '*.vue'],
  json: ['*.json', '*.jsonc', '*.json5'],
  kotlin: ['*.kt', '*.kts'],
  lua: ['*.lua'],
  md: ['*.md', '*.markdown', '*.mdx'],
  php: ['*.php'],
  py: ['*.py', '*.pyi'],
  rb: ['*.rb', '*.gemspec', 'Gemfile', 'Rakefile'],
  rust: ['*.rs'],
  sh: ['*.sh', '*.bash', '*.zsh', '.bashrc', '.zshrc', '.profile'],
  sql: ['*.sql'],
  swift: ['*.swift'],
  toml: ['*.toml'],
  ts: ['*.ts', '*.tsx', '*.mts', '*.cts'],
  xml: ['*.xml', '*.xsd', '*.xsl', '*.svg'],
  yaml: ['*.yaml', '*.yml'],
};
const ALIASES: Record<string, string> = {
  python: 'py',
  javascript: 'js',
  typescript: 'ts',
  ruby: 'rb',
  markdown: 'md',
  yml: 'yaml',
  csharp: 'cs',
};

export function knownFileTypes(): string[] {
  return Object.keys(FILE_TYPES);
}

/** A predicate on file base names for an rg type name, or undefined for an unknown type. */
export function fileTypeMatcher(type: string): ((fileName: string) => boolean) | undefined {
  const globs = FILE_TYPES[ALIASES[type] ?? type];
  return globs === undefined ? undefined : picomatch(globs, { dot: true });
}
