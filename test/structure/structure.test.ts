import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { cyclesOf, type ImportEdge, importsOf, REPO, sourceFiles } from './import-graph.js';

// The house rules of CONVENTIONS 3 and 17, checked on the real tree (read-only, no network).
const APPS = ['agent-sdk', 'config', 'registry', 'orchestrator', 'console'];
const appFiles = APPS.flatMap((app) => sourceFiles(`apps/${app}/src`));
const exampleFiles = sourceFiles('apps/agent-sdk/examples');
const outsideFiles = ['test', 'bench', 'scripts'].flatMap((dir) => sourceFiles(dir));
const edges = new Map<string, ImportEdge[]>(
  [...appFiles, ...exampleFiles, ...outsideFiles].map((file) => [file, importsOf(file)]),
);

const isTest = (file: string) => /\.test\.m?ts$/.test(file);
const isTestSupport = (file: string) => file.includes('/testing/') || file.startsWith('test/');
const isProduction = (file: string) => !isTest(file) && !isTestSupport(file);
const TEST_LIBRARIES = /^(vitest|@vitest\/|fast-check$|playwright-core$)/;
const appOf = (file: string) => /^apps\/([^/]+)\//.exec(file)?.[1] ?? file.split('/')[0]!;

describe('structure', () => {
  it('has no import cycle between source files', () => {
    const graph = new Map<string, string[]>();
    for (const [file, imports] of edges)
      graph.set(
        file,
        imports.flatMap((e) => (e.target === null ? [] : [e.target])),
      );
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('keeps test support and test libraries out of every production module', () => {
    // A production file that imports none of them reaches none: the first test file on any path
    // from production code would be a direct import of a production file.
    const offences: string[] = [];
    for (const file of [...appFiles, ...exampleFiles].filter(isProduction)) {
      for (const edge of edges.get(file) ?? []) {
        if (TEST_LIBRARIES.test(edge.specifier) || (edge.target !== null && !isProduction(edge.target)))
          offences.push(`${file} imports ${edge.specifier}`);
      }
    }
    expect(offences).toEqual([]);
  });

  it('keeps test support in one testing/ folder per app, under one naming scheme', () => {
    const stray = appFiles.filter(
      (file) =>
        !file.includes('/testing/') &&
        !isTest(file) &&
        /(\.fixture|\.contract|\/fake-[^/]*|\/contract-[^/]*|-fixtures|\/test-[^/]*)\.m?ts$/.test(file),
    );
    expect(stray).toEqual([]);
  });

  // The SDK and the config package are libraries (agents outside this repository use them); the
  // three apps export only what another package of the workspace imports.
  it('lists in each app’s public entry points only what other packages import', () => {
    const entries: Array<{ app: string; specifier: string; file: string }> = [];
    for (const app of ['registry', 'orchestrator', 'console']) {
      const manifest = JSON.parse(readFileSync(join(REPO, `apps/${app}/package.json`), 'utf8')) as {
        name: string;
        exports: Record<string, string>;
      };
      for (const [subpath, entry] of Object.entries(manifest.exports)) {
        if (subpath === './testing') continue;
        const specifier = subpath === '.' ? manifest.name : `${manifest.name}/${subpath.slice(2)}`;
        entries.push({ app, specifier, file: join(REPO, `apps/${app}`, entry) });
      }
    }
    const exported = exportedNames(entries.map((e) => e.file));
    const unused: string[] = [];
    for (const { app, specifier, file } of entries) {
      const used = new Set<string>();
      for (const [importer, imports] of edges) {
        if (appOf(importer) === app) continue;
        for (const edge of imports) if (edge.specifier === specifier) for (const n of edge.names) used.add(n);
      }
      if (used.has('*')) continue;
      for (const name of exported.get(file) ?? []) if (!used.has(name)) unused.push(`${specifier}: ${name}`);
    }
    expect(unused).toEqual([]);
  }, 120_000);
});

/** The names each module exports, following `export *`, as the type checker sees them. */
function exportedNames(files: string[]): Map<string, string[]> {
  const program = ts.createProgram(files, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    noEmit: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  return new Map(
    files.map((file) => {
      const symbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
      return [file, checker.getExportsOfModule(symbol).map((s) => s.getName())];
    }),
  );
}
