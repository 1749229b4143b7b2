import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// Comments and docs point a newcomer at docs/ only: every `docs/<page>.md#<section>` in the
// code and every relative link between the Markdown pages must land on a real heading.

const root = path.resolve(__dirname, '../..');

function files(dir: string, ext: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    return statSync(p).isDirectory() ? files(p, ext) : ext.test(p) ? [p] : [];
  });
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(page: string): Set<string> {
  const text = readFileSync(page, 'utf8').replace(/```[\s\S]*?```/g, '');
  return new Set([...text.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) => slug(m[1])));
}

/** The comments of a source file (a test's data may name a docs/ file that is not a link). */
function comments(text: string): string[] {
  return text.match(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g) ?? [];
}

interface Link {
  from: string;
  page: string;
  anchor: string | undefined;
}

function brokenLinks(links: Link[]): string[] {
  return links.flatMap(({ from, page, anchor }) => {
    const where = path.relative(root, from);
    if (!existsSync(page)) return [`${where}: ${path.relative(root, page)} does not exist`];
    if (anchor !== undefined && !anchorsOf(page).has(anchor)) return [`${where}: ${path.relative(root, page)} has no section #${anchor}`];
    return [];
  });
}

describe('links to the docs', () => {
  it('from code and tests name pages and sections that exist', () => {
    const sources = ['src', 'test', 'webview-ui'].flatMap((dir) => files(path.join(root, dir), /\.ts$/));
    const links = sources.flatMap((from) =>
      comments(readFileSync(from, 'utf8')).flatMap((comment) =>
        [...comment.matchAll(/\bdocs\/([\w-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({
          from,
          page: path.join(root, 'docs', m[1]),
          anchor: m[2],
        })),
      ),
    );
    expect(links.length).toBeGreaterThan(0);
    expect(brokenLinks(links)).toEqual([]);
  });

  it('between the Markdown pages land on a real heading', () => {
    const pages = [...files(path.join(root, 'docs'), /\.md$/), path.join(root, 'README.md'), path.join(root, 'CONTRIBUTING.md')];
    const links = pages.flatMap((from) =>
      [...readFileSync(from, 'utf8').matchAll(/\]\(((?:[\w./-]+\.md)?)(?:#([\w-]+))?\)/g)]
        .filter((m) => m[1] !== '' || m[2] !== undefined)
        .map((m) => ({ from, page: m[1] === '' ? from : path.resolve(path.dirname(from), m[1]), anchor: m[2] })),
    );
    expect(links.length).toBeGreaterThan(0);
    expect(brokenLinks(links)).toEqual([]);
  });

  it('never cite documents outside the repository (numbered seeds, research notes, § sections of other documents)', () => {
    const code = ['src', 'test', 'webview-ui', 'examples'].flatMap((dir) => files(path.join(root, dir), /\.(ts|js|json|md)$/));
    const texts = [...code, ...files(path.join(root, 'docs'), /\.md$/)];
    const cites = (file: string) => /\bseed 00\d|§|\bthe seeds\b/i.test(readFileSync(file, 'utf8'));
    const citing = texts.filter((file) => file !== __filename && cites(file));
    expect(citing.map((file) => path.relative(root, file))).toEqual([]);
  });

  it('slugs headings as GitHub does', () => {
    expect(slug("Claude Code's protocol")).toBe('claude-codes-protocol');
    expect(slug('Permission precedence P0-P8')).toBe('permission-precedence-p0-p8');
    expect(slug('Observers, interceptors, approvers')).toBe('observers-interceptors-approvers');
    expect(slug('`command`')).toBe('command');
  });
});
