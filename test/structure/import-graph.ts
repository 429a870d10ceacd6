import { readdirSync, readFileSync, realpathSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** The repository root (this file is test/structure/import-graph.ts). */
export const REPO = realpathSync(new URL('../../', import.meta.url));

/** One import of one file: the specifier as written, the names it takes, and the repo file it resolves to. */
export interface ImportEdge {
  specifier: string;
  names: string[];
  typeOnly: boolean;
  /** Repo-relative path of the target when it is a source file of this repository. */
  target: string | null;
}

/** Every `.ts`/`.mts` file below `dir` (repo-relative), skipping node_modules and dist. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (abs: string) => {
    for (const entry of readdirSync(abs, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'dist') continue;
      const path = join(abs, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (/\.m?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(relative(REPO, path));
    }
  };
  walk(join(REPO, dir));
  return out.sort();
}

const options: ts.CompilerOptions = {
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  allowImportingTsExtensions: true,
};
const host = ts.createCompilerHost(options);

function resolve(specifier: string, from: string): string | null {
  const mode = ts.ModuleKind.ESNext;
  const resolved = ts.resolveModuleName(
    specifier,
    join(REPO, from),
    options,
    host,
    undefined,
    undefined,
    mode,
  ).resolvedModule?.resolvedFileName;
  if (resolved === undefined) return null;
  const real = relative(REPO, realpathSync(resolved));
  return real.startsWith('..') || real.includes(`node_modules${sep}`) ? null : real;
}

function namesOf(
  clause: ts.ImportClause | ts.NamedImportBindings | ts.NamedExportBindings | undefined,
): string[] {
  if (clause === undefined) return [];
  if (ts.isNamespaceImport(clause) || ts.isNamespaceExport(clause)) return ['*'];
  if (ts.isNamedImports(clause) || ts.isNamedExports(clause))
    return clause.elements.map((e) => (e.propertyName ?? e.name).text);
  const names: string[] = [];
  if (clause.name) names.push('default');
  if (clause.namedBindings) names.push(...namesOf(clause.namedBindings));
  return names;
}

/** The imports and re-exports of one file, resolved. */
export function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(join(REPO, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, false);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, names: string[], typeOnly: boolean) =>
    edges.push({ specifier, names, typeOnly, target: resolve(specifier, file) });
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, namesOf(node.importClause), node.importClause?.isTypeOnly ?? false);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      add(node.moduleSpecifier.text, node.exportClause ? namesOf(node.exportClause) : ['*'], node.isTypeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, ['*'], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return edges;
}

/** Strongly connected components of more than one file (or a file importing itself): the import cycles. */
export function cyclesOf(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!indexOf.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, indexOf.get(w)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) connect(v);
  return cycles;
}
