// `pnpm build`: every app bundled to JavaScript under apps/<app>/dist (docs/build.md says why esbuild).
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { buildUi } from '../apps/console/src/server/ui-bundle.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** One app's bundles: its entry points, by the name each gets under dist/. */
export interface AppBuild {
  app: string;
  entries: Record<string, string>;
}

/** What `pnpm build` produces: `node apps/<app>/dist/<name>.js` for each entry. */
export const APP_BUILDS: AppBuild[] = [
  {
    app: 'registry',
    // The DNS responder thread is an entry of its own: the worker loads it by file.
    entries: { main: 'src/main.ts', 'responder-worker': 'src/dns/responder-worker.ts' },
  },
  { app: 'orchestrator', entries: { main: 'src/main.ts' } },
  { app: 'console', entries: { main: 'src/main.ts', cli: 'src/cli/main.ts' } },
];

/**
 * Bundles the workspace's own code (the `@agent-reach/*` packages, resolved through their `exports`, so a
 * deep import of another package's internals fails the build) and leaves npm packages external, to be
 * loaded from the app's node_modules at run time. An npm package the app's own code imports without
 * declaring it fails the build; one that only a workspace library declares is bundled in with it.
 * `import.meta.url` keeps meaning the source file's own URL, so files found next to a source file (the
 * console's UI, the migrations, the SDK's heartbeat worker) are found in the source tree in a build too.
 */
function workspacePlugin(appDir: string, outDir: string): Plugin {
  const manifest = JSON.parse(readFileSync(join(appDir, 'package.json'), 'utf8')) as {
    dependencies?: Record<string, string>;
  };
  const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
  return {
    name: 'agent-reach-workspace',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('node:') || args.path.startsWith('@agent-reach/')) return undefined;
        if (args.pluginData === 'checked') return undefined;
        // What `node dist/main.js` finds at run time in an image: the app's production dependencies
        // (`pnpm deploy --prod`), not dev ones nor the workspace root's, which only the checkout has.
        const name = args.path.startsWith('@')
          ? args.path.split('/').slice(0, 2).join('/')
          : args.path.split('/')[0]!;
        if (!dependencies.has(name)) {
          // A library's own dependency (the SDK's eventsource-parser) goes into the bundle with it.
          if (!args.importer.startsWith(appDir)) return undefined;
          return {
            errors: [
              {
                text: `${args.path} (imported by ${relative(ROOT, args.importer)}) is not a dependency of ${relative(ROOT, appDir)}`,
              },
            ],
          };
        }
        const found = await b.resolve(args.path, {
          kind: args.kind,
          resolveDir: appDir,
          pluginData: 'checked',
        });
        if (found.errors.length > 0) return { errors: found.errors };
        return { path: args.path, external: true };
      });
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        const { readFile } = await import('node:fs/promises');
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return { contents: source, loader: 'ts' };
        const fromOut = relative(outDir, args.path).split('\\').join('/');
        const own = `new URL(${JSON.stringify(fromOut)}, import.meta.url).href`;
        return {
          contents: source.replaceAll('import.meta.url', own),
          loader: 'ts',
          resolveDir: dirname(args.path),
        };
      });
    },
  };
}

/** Builds one app into apps/<app>/dist (emptied first). */
export async function buildApp({ app, entries }: AppBuild): Promise<string[]> {
  const appDir = join(ROOT, 'apps', app);
  const outDir = join(appDir, 'dist');
  await rm(outDir, { recursive: true, force: true });
  const entryPoints = Object.fromEntries(
    Object.entries(entries).map(([name, file]) => [name, join(appDir, file)]),
  );
  const responder = join(outDir, 'responder-worker.js');
  await build({
    entryPoints,
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    // Names of functions and classes stay as written (pino, error names), and no `__name` helper is emitted.
    keepNames: false,
    logLevel: 'warning',
    // CommonJS code bundled from a library's dependencies (pino-pretty) calls require().
    banner: {
      js: "import { createRequire as __reachCreateRequire } from 'node:module'; const require = __reachCreateRequire(import.meta.url);",
    },
    define: {
      // Where the bundled responder worker lies, seen from the source file that starts it.
      REACH_BUNDLED_RESPONDER: JSON.stringify(
        relative(join(appDir, 'src/dns'), responder).split('\\').join('/'),
      ),
    },
    plugins: [workspacePlugin(appDir, outDir)],
  });
  return Object.keys(entries).map((name) => join(outDir, `${name}.js`));
}

/** The console's web UI into apps/console/dist/ui (the console also builds it at every start). */
export async function buildConsoleUi(): Promise<string> {
  const outDir = join(ROOT, 'apps/console/dist/ui');
  await mkdir(outDir, { recursive: true });
  for (const [path, file] of await buildUi()) await writeFile(join(outDir, path), file.bytes);
  return outDir;
}

async function main(): Promise<void> {
  for (const target of APP_BUILDS) {
    const files = await buildApp(target);
    for (const file of files) process.stdout.write(`built ${relative(ROOT, file)}\n`);
  }
  process.stdout.write(`built ${relative(ROOT, await buildConsoleUi())}/\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((error: unknown) => {
    process.stderr.write(`build failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
