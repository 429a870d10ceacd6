import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The UI's source: `app/main.tsx` (TypeScript + preact) and the static files beside it. */
export const UI_SOURCE_DIR = fileURLToPath(new URL('../ui/', import.meta.url));

/** The files the UI is made of besides its bundle, served as they are. */
const STATIC_FILES = ['index.html', 'styles.css', 'favicon.svg'];

/** The file types the UI is made of; anything else is not served. */
export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** One built file of the UI. */
export interface UiFile {
  contentType: string;
  bytes: Uint8Array;
}

/** The built UI: URL path (`/index.html`, `/app.js`, …) → file. */
export type UiFiles = Map<string, UiFile>;

/**
 * Builds the UI in memory with esbuild: `app/main.tsx` and everything it imports (preact, dagre, the
 * shared formatters) into one ES module `app.js`, plus the static files. Takes ~100 ms, so the
 * console builds it at every start (from source under tsx and from `dist/` alike) and never serves a
 * stale bundle. The bundle holds no `eval`: the console's CSP refuses it.
 */
export async function buildUi(
  sourceDir = UI_SOURCE_DIR,
  options: { minify?: boolean } = {},
): Promise<UiFiles> {
  const minify = options.minify ?? true;
  const result = await build({
    entryPoints: { app: join(sourceDir, 'app/main.tsx') },
    bundle: true,
    write: false,
    outdir: '/ui',
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify,
    sourcemap: 'linked',
    legalComments: 'none',
    logLevel: 'silent',
    define: { 'process.env.NODE_ENV': '"production"' },
    absWorkingDir: sourceDir,
  });
  const files: UiFiles = new Map();
  for (const out of result.outputFiles) {
    const path = `/${out.path.replace(/^\/ui\//, '')}`;
    files.set(path, { contentType: CONTENT_TYPES[extname(path)]!, bytes: out.contents });
  }
  for (const name of STATIC_FILES) {
    const bytes = await readFile(join(sourceDir, name));
    files.set(`/${name}`, { contentType: CONTENT_TYPES[extname(name)]!, bytes: new Uint8Array(bytes) });
  }
  return files;
}
