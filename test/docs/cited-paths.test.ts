/**
 * Every repository path a comment or a document cites exists in the tree the test runs in: `src/…`, `test/…` and
 * `docs/…` paths in the comments of src/, test/, bench/, scripts/ and web/src, and in README.md, docs/*.md and
 * bench/README.md, plus the relative links of those documents. A cited section must exist too: `docs/NAME.md#anchor`
 * and `[…](NAME.md#anchor)` name a heading of that document (GitHub's anchor of it), and `docs/NAME.md, "Title"` a
 * heading or a bold entry that starts with Title (one heading at most: no section is named twice). A path right after
 * a package's name or version is that package's. Placeholders (`AREA`, `NAME`, `*`, `{…}`) are not paths. The test reads the
 * files present, so it holds for any set of files merged together.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<
  'dependencies' | 'devDependencies',
  Record<string, string>
>;
const CODE_DIRS = ['src', 'test', 'bench', 'scripts', 'web/src'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'results', 'tmp', 'fixtures']);
const CODE_FILE = /\.(ts|tsx|mjs|js|cjs)$/;

/** A cited path: `src/…`, `test/…` or `docs/…`, not inside a URL or a longer path, with an optional #anchor. */
const CITED = /(?<![\w./@:-])((?:src|test|docs)\/[\w.{}*…<>/-]*[\w/])(#[\w-]+)?/g;
/** Text just before a path that makes it another package's (`mppx 0.11.0 \`src/…\``, `viem's src/…`). */
const PACKAGE_BEFORE = new RegExp(
  `(\\b\\d+\\.\\d+\\.\\d+|\\b(${Object.keys({ ...PACKAGE.dependencies, ...PACKAGE.devDependencies })
    .map((n) => n.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
    .join('|')})('s)?)[\\s\`'"(]*$`,
);
/** A section named after a document: `docs/NAME.md, "Title"` or `docs/NAME.md "Title"`. */
const SECTION = /(?<![\w./-])(docs\/[\w.-]+\.md),? "([^"]+)"/g;
/** A markdown link target. */
const LINK = /\]\(([^)\s]+)\)/g;

/** Every file under `dir` (relative to the root) whose name matches `re`, skipping build output and data. */
function filesUnder(dir: string, re: RegExp): string[] {
  if (!existsSync(join(ROOT, dir))) return [];
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name)) out.push(...filesUnder(path, re));
    } else if (re.test(e.name)) out.push(path);
  }
  return out;
}

/** The comments of a source file, as one text each with the line it starts on. */
function commentsOf(file: string, text: string): { text: string; line: number }[] {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    false,
    file.endsWith('x') ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard,
    text,
  );
  const out: { text: string; line: number }[] = [];
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      out.push({ text: scanner.getTokenText(), line: text.slice(0, scanner.getTokenStart()).split('\n').length });
    }
  }
  return out;
}

/** GitHub's anchor of a heading: lower case, punctuation but `-` and `_` dropped, spaces as `-`. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');

/** The headings of a markdown file (text after the #s) and its bold entries (`**Name…`). */
function sectionsOf(mdPath: string): { headings: string[]; bold: string[] } {
  const text = readFileSync(join(ROOT, mdPath), 'utf8');
  return {
    headings: [...text.matchAll(/^#{1,6} +(.+)$/gm)].map((m) => m[1]),
    bold: [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]),
  };
}

const isPlaceholder = (path: string) => /[*{}…<>]/.test(path) || path.split('/').some((s) => /^[A-Z][A-Z_]*(\.\w+)?$/.test(s));

/** Exists as cited, or cited as .js for a .ts (or .tsx) source. */
function exists(path: string): boolean {
  return (
    existsSync(join(ROOT, path)) || (path.endsWith('.js') && ['.ts', '.tsx'].some((x) => existsSync(join(ROOT, path.replace(/\.js$/, x)))))
  );
}

/** Problems with the paths and sections `text` cites; `where` names the place, `base` is the folder links resolve from. */
function checkText(text: string, where: string, base: string | null): string[] {
  const problems: string[] = [];
  const checkAnchor = (md: string, anchor: string, cite: string) => {
    if (!md.endsWith('.md') || !existsSync(join(ROOT, md))) return;
    if (!sectionsOf(md).headings.some((h) => anchorOf(h) === anchor))
      problems.push(`${where}: ${cite}: no heading of ${md} has the anchor #${anchor}`);
  };
  for (const m of text.matchAll(CITED)) {
    const [cite, path, hash] = m;
    if (isPlaceholder(path) || PACKAGE_BEFORE.test(text.slice(Math.max(0, m.index - 60), m.index))) continue;
    if (!exists(path)) problems.push(`${where}: ${cite}: no such file or folder`);
    else if (hash) checkAnchor(path, hash.slice(1), cite);
  }
  for (const [cite, md, name] of text.matchAll(SECTION)) {
    if (!existsSync(join(ROOT, md))) continue;
    const { headings, bold } = sectionsOf(md);
    const starts = (s: string) => s.toLowerCase().startsWith(name.toLowerCase());
    const named = headings.filter(starts).length;
    if (named > 1) problems.push(`${where}: ${cite}: ${named} headings of ${md} start with "${name}"`);
    else if (!named && !bold.some(starts)) problems.push(`${where}: ${cite}: ${md} has no section "${name}"`);
  }
  if (base !== null) {
    for (const [, target] of text.matchAll(LINK)) {
      if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
      const [file, anchor] = target.split('#');
      const path = file ? normalize(join(base, file)).replace(/\\/g, '/') : where;
      if (file && !existsSync(join(ROOT, path))) problems.push(`${where}: link (${target}): no such file or folder`);
      else if (anchor && statSync(join(ROOT, path)).isFile()) checkAnchor(path, anchor, `link (${target})`);
    }
  }
  return problems;
}

describe('cited paths', () => {
  it('every path and section cited in a comment exists', () => {
    const problems: string[] = [];
    const files = CODE_DIRS.flatMap((d) => filesUnder(d, CODE_FILE));
    expect(files.length).toBeGreaterThan(300);
    for (const file of files) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const c of commentsOf(file, text)) problems.push(...checkText(c.text, `${file}:${c.line}`, null));
    }
    expect(problems).toEqual([]);
  });

  it('every path, link and section cited in the documents exists', () => {
    const docs = ['README.md', 'bench/README.md', ...filesUnder('docs', /\.md$/)];
    expect(docs.length).toBeGreaterThan(8);
    const problems = docs.flatMap((doc) =>
      checkText(readFileSync(join(ROOT, doc), 'utf8'), doc, relative(ROOT, dirname(join(ROOT, doc))) || '.'),
    );
    expect(problems).toEqual([]);
  });

  it('no document has two sections of one name, or one named as the start of another at its level', () => {
    const alike = filesUnder('docs', /\.md$/).flatMap((doc) => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const headings = [...text.matchAll(/^(#{1,6}) +(.+)$/gm)].map((m) => ({ level: m[1].length, name: anchorOf(m[2]) }));
      return headings.flatMap((a, i) =>
        headings
          .slice(i + 1)
          .filter((b) => b.level === a.level && (a.name === b.name || a.name.startsWith(`${b.name}-`) || b.name.startsWith(`${a.name}-`)))
          .map((b) => `${doc}: #${a.name} and #${b.name}`),
      );
    });
    expect(alike).toEqual([]);
  });
});
