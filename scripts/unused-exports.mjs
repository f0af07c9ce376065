#!/usr/bin/env node
// `node scripts/unused-exports.mjs`: the exports no other file imports. Every import, re-export, `import type`,
// `import('…')` and Vue component script in the tree is resolved with the TypeScript checker to the symbol it names;
// an export whose symbol no other file names is listed, "UNUSED" when its own file does not use it either (dead), or
// "used in its file" (its `export` could go). A module imported dynamically counts as wholly used. A finder, not a
// gate: what it lists is judged by hand (a type may name a schema's shape on purpose).
import ts from 'typescript';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const walk = (dir, out = []) => {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!['node_modules', 'dist'].includes(e.name)) walk(p, out);
    } else out.push(p);
  }
  return out;
};
const dirs = ['core', 'runners', 'electron', 'renderer/src', 'test', 'assets', 'scripts', 'bin']
  .map((d) => path.join(root, d))
  .filter(fs.existsSync);
const files = dirs.flatMap((d) => walk(d));
const tsFiles = files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'));
// Vue scripts as virtual .ts files next to the component.
const vue = new Map();
for (const f of files.filter((f) => f.endsWith('.vue'))) {
  const text = fs.readFileSync(f, 'utf8');
  const m = /<script\b[^>]*>([\s\S]*?)<\/script>/.exec(text);
  if (m) vue.set(f + '.ts', m[1]);
}
const options = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowJs: true,
  checkJs: false,
  noEmit: true,
  skipLibCheck: true,
  types: ['node'],
  lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
  strict: true,
};
const host = ts.createCompilerHost(options);
const readFile = host.readFile,
  fileExists = host.fileExists,
  getSourceFile = host.getSourceFile;
host.fileExists = (f) => vue.has(f) || fileExists(f);
host.readFile = (f) => vue.get(f) ?? readFile(f);
host.getSourceFile = (f, lang, ...rest) =>
  vue.has(f) ? ts.createSourceFile(f, vue.get(f), lang, true, ts.ScriptKind.TS) : getSourceFile(f, lang, ...rest);
const jsFiles = files.filter((f) => /\.(mjs|js)$/.test(f));
const program = ts.createProgram([...tsFiles, ...vue.keys(), ...jsFiles], options, host);
const checker = program.getTypeChecker();

const used = new Set(); // declarations' symbols named from another file
const resolveAlias = (s) => (s && s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s);
const markAllOf = (moduleSymbol) => {
  if (moduleSymbol) for (const e of checker.getExportsOfModule(moduleSymbol)) used.add(resolveAlias(e));
};
const declFile = (s) => s?.declarations?.[0]?.getSourceFile().fileName;

for (const sf of program.getSourceFiles()) {
  if (sf.fileName.includes('node_modules')) continue;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const mod = node.moduleSpecifier && checker.getSymbolAtLocation(node.moduleSpecifier);
      if (ts.isExportDeclaration(node) && !node.exportClause && mod) markAllOf(mod); // export *
      if (ts.isExportDeclaration(node) && node.exportClause && ts.isNamespaceExport(node.exportClause)) markAllOf(mod);
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      if (clause?.namedBindings && ts.isNamespaceImport(clause.namedBindings)) markAllOf(mod);
      if (clause?.name) used.add(resolveAlias(checker.getSymbolAtLocation(clause.name)));
      const specs =
        clause?.namedBindings && ts.isNamedImports(clause.namedBindings)
          ? clause.namedBindings.elements
          : ts.isExportDeclaration(node) &&
              node.exportClause &&
              ts.isNamedExports(node.exportClause) &&
              node.moduleSpecifier
            ? node.exportClause.elements
            : [];
      for (const s of specs) used.add(resolveAlias(checker.getSymbolAtLocation(s.name)));
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg) markAllOf(checker.getSymbolAtLocation(arg));
    }
    if (ts.isImportTypeNode(node)) {
      const lit = node.argument.literal;
      const mod = lit && checker.getSymbolAtLocation(lit);
      if (node.qualifier)
        used.add(
          resolveAlias(
            checker.getSymbolAtLocation(ts.isIdentifier(node.qualifier) ? node.qualifier : node.qualifier.right),
          ),
        );
      else markAllOf(mod);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
}
// Local uses of an export: any identifier in its own file (other than the declaration) resolving to it.
const out = [];
for (const sf of program.getSourceFiles()) {
  const f = sf.fileName;
  if (f.includes('node_modules') || !f.startsWith(root) || f.endsWith('.vue.ts') || !f.endsWith('.ts')) continue;
  const mod = checker.getSymbolAtLocation(sf);
  if (!mod) continue;
  for (const e of checker.getExportsOfModule(mod)) {
    const target = resolveAlias(e);
    if (used.has(target) || used.has(e)) continue;
    if (declFile(target) !== f) continue; // a re-export of something else: judged where it is declared
    // used locally?
    let local = 0;
    const decls = new Set(target.declarations ?? []);
    const count = (n) => {
      if (ts.isIdentifier(n) && n.text === e.name && !decls.has(n.parent)) {
        const s = resolveAlias(checker.getSymbolAtLocation(n));
        if (s === target) local++;
      }
      ts.forEachChild(n, count);
    };
    count(sf);
    const line = sf.getLineAndCharacterOfPosition(target.declarations[0].getStart()).line + 1;
    out.push(`${path.relative(root, f)}:${line} ${e.name}${local ? ' (used in its file)' : ' (UNUSED)'}`);
  }
}
console.log(out.sort().join('\n'));
console.error(`${out.length} exports nothing imports`);
