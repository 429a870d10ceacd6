import { readFileSync } from 'node:fs';

/** The console package's version (the CLI ships with it). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}
