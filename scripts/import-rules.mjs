/**
 * Import rules of src/ beside the cycle checks (docs/architecture.md, "Principles"), run by `npm run lint:cycles`:
 * 1. The store is the only place with SQL: outside src/store/ no module imports the database libraries (kysely, pg,
 *    better-sqlite3), not even their types.
 * 2. Faces (FACES below) reach the store only to open one: from src/store/ they import types (`import type`, or
 *    `type` on every name), and values only from the modules and names in FACE_STORE_VALUES.
 * 3. The explorer (web/src) imports the server's types, and as values only the pure modules in WEB_SHARED, which
 *    themselves import values only from each other and from packages: nothing of the server is bundled.
 * Static imports, `export … from` and dynamic `import()` all count. Exits 1 and prints each offending import.
 * Usage: node scripts/import-rules.mjs [ROOT] (default: the current directory).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Face modules: folders (ending in /) or files, relative to the repository root. */
export const FACES = ['src/api/', 'src/mcp/', 'src/cli/', 'src/http/', 'src/trust/app.ts', 'src/trust/access.ts'];

/** What a face may import as a value from the store: module → names, each with why. */
export const FACE_STORE_VALUES = {
  // Opening the store named by --db.
  'src/store/db.ts': ['openStore'],
  // Opening the read store over a replica (--db-read).
  'src/store/read-replica.ts': ['openReadStore'],
  // Opening the store as its one writer: the collector lock `paywatch collect` takes before it launches the collector.
  'src/store/chain/collector-lock.ts': ['acquireOrStandBy'],
  // The store's outage error, which every face maps once (HTTP 503, CLI exit code, MCP error).
  'src/store/outage.ts': ['isStoreOutage', 'StoreUnavailable'],
  // `paywatch compact`: the store's maintenance statements and its size by table and index.
  'src/store/maintenance.ts': ['compactStore', 'storageUsage'],
};

/** Server modules the explorer may bundle: pure rules it shares with the server (no I/O, no server state); money throws the catalogue's InvalidDecimal. */
export const WEB_SHARED = ['src/domain/money.ts', 'src/domain/metrics.ts', 'src/domain/errors.ts', 'src/domain/error-codes.ts'];

/** Packages that speak SQL to a database. */
export const DATABASE_PACKAGES = ['kysely', 'pg', 'better-sqlite3'];

const isFace = (file) => FACES.some((f) => (f.endsWith('/') ? file.startsWith(f) : file === f));
const isDatabasePackage = (spec) => DATABASE_PACKAGES.some((p) => spec === p || spec.startsWith(`${p}/`));

/** Every .ts (and .tsx) file under `dir`, as paths relative to `root` with forward slashes; [] when `dir` is absent. */
function tsFiles(root, dir) {
  if (!existsSync(join(root, dir))) return [];
  const out = [];
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) out.push(...tsFiles(root, path));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/**
 * The imports of one source text: specifier, whether only types are imported, the value names (null: a namespace,
 * `export *` or dynamic import, which take everything) and the line.
 */
export function importsOf(file, text) {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const out = [];
  const line = (node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      let typeOnly = !!clause?.isTypeOnly;
      let names = [];
      if (clause && !typeOnly) {
        if (clause.name) names.push('default');
        const b = clause.namedBindings;
        if (b && ts.isNamespaceImport(b)) names = null;
        else if (b) names.push(...b.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text));
        typeOnly = names !== null && names.length === 0 && !!clause;
      }
      // `import 'x'` (no clause) runs the module: a value import of nothing named.
      out.push({ spec: node.moduleSpecifier.text, typeOnly, names: clause ? names : [], line: line(node) });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const c = node.exportClause;
      const names = c && ts.isNamedExports(c) ? c.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text) : null;
      out.push({
        spec: node.moduleSpecifier.text,
        typeOnly: node.isTypeOnly || (names !== null && names.length === 0),
        names,
        line: line(node),
      });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push({ spec: arg.text, typeOnly: false, names: destructured(node), line: line(node) });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      out.push({ spec: node.argument.literal.text, typeOnly: true, names: [], line: line(node) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The names taken from a dynamic import by `const { a, b: c } = await import(…)`; null (everything) otherwise. */
function destructured(call) {
  const decl = ts.isAwaitExpression(call.parent) ? call.parent.parent : null;
  if (!decl || !ts.isVariableDeclaration(decl) || !ts.isObjectBindingPattern(decl.name)) return null;
  if (decl.name.elements.some((e) => e.dotDotDotToken)) return null;
  return decl.name.elements.map((e) => (e.propertyName ?? e.name).getText());
}

/** A relative specifier of `file` as a repository path (`./x.js` or `./x` → `src/…/x.ts`); null for a package. */
function resolveSpec(file, spec) {
  if (!spec.startsWith('.')) return null;
  const path = join(dirname(file), spec).replace(/\\/g, '/');
  return /\.tsx?$/.test(path) ? path : `${path.replace(/\.js$/, '')}.ts`;
}

/**
 * Checks every .ts file under `root`/src and every .ts and .tsx file under `root`/web/src against the rules.
 * @returns one line per offending import, `file:line: what` (empty when every import keeps the rules)
 */
export function checkImportRules(root) {
  const problems = [];
  for (const file of tsFiles(root, 'src')) {
    const inStore = file.startsWith('src/store/');
    for (const imp of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      if (!inStore && isDatabasePackage(imp.spec)) {
        problems.push(`${file}:${imp.line}: imports ${imp.spec}: only src/store/ speaks SQL (give the store a function instead)`);
        continue;
      }
      const target = resolveSpec(file, imp.spec);
      if (!isFace(file) || !target?.startsWith('src/store/') || imp.typeOnly) continue;
      const allowed = FACE_STORE_VALUES[target];
      const extra = imp.names === null ? ['*'] : imp.names.filter((n) => !allowed?.includes(n));
      if (!allowed || extra.length)
        problems.push(
          `${file}:${imp.line}: a face imports ${extra.join(', ') || 'the module'} from ${target}: faces may import types from src/store/ and, as values, only ${Object.entries(
            FACE_STORE_VALUES,
          )
            .map(([m, n]) => `${n.join(', ')} from ${m}`)
            .join('; ')}`,
        );
    }
  }
  for (const file of [...tsFiles(root, 'web/src'), ...WEB_SHARED.filter((f) => existsSync(join(root, f)))]) {
    const shared = WEB_SHARED.includes(file);
    for (const imp of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      const target = resolveSpec(file, imp.spec);
      if (imp.typeOnly || !target || (!shared && target.startsWith('web/')) || WEB_SHARED.includes(target)) continue;
      problems.push(
        `${file}:${imp.line}: ${shared ? 'a module the explorer bundles' : 'the explorer'} imports a value from ${target}: only types, and values from ${WEB_SHARED.join(', ')}`,
      );
    }
  }
  return problems;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(process.argv[2] ?? '.');
  const problems = checkImportRules(root);
  if (problems.length) {
    for (const p of problems) console.error(p);
    process.exit(1);
  }
  const at = relative(process.cwd(), root) || '.';
  console.log(
    `Import rules kept by ${tsFiles(root, 'src').length} modules of ${at}/src and ${tsFiles(root, 'web/src').length} of ${at}/web/src.`,
  );
}
