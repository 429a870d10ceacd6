import { readFileSync } from 'node:fs';

/** The console package's version (the CLI ships with it), from src/cli/ or the bundle in dist/. */
export function cliVersion(): string {
  for (const up of ['../../package.json', '../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (pkg.name === '@agent-reach/console' && pkg.version) return pkg.version;
    } catch {
      // not this level
    }
  }
  return 'unknown';
}
