// The Debian tools the tests need: read from scripts/system-packages.txt, looked up on a PATH.
// Plain JavaScript: scripts/bootstrap.mjs runs it before the workspace is installed.
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

// Debian puts daemons (knotd) in sbin, which a non-root user's PATH often lacks.
const SBIN = ['/usr/sbin', '/sbin'];

/** Parses the package list: `command package purpose…` per line, `#` comments. */
export function readSystemPackages(file) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [command, pkg, ...purpose] = line.split(/\s+/);
      return { command, pkg, purpose: purpose.join(' ') };
    });
}

/** The full path of an executable on `path` (or in sbin), or undefined. */
export function findTool(command, path) {
  for (const dir of [...path.split(delimiter).filter(Boolean), ...SBIN]) {
    const file = join(dir, command);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {}
  }
  return undefined;
}

/** The packages whose command is not found. */
export function checkSystemTools(packages, path) {
  return packages.filter((p) => findTool(p.command, path) === undefined);
}

/** The one command that installs the given packages. */
export function installCommand(packages) {
  const names = [...new Set(packages.map((p) => p.pkg))].join(' ');
  return `sudo apt-get update && sudo apt-get install -y --no-install-recommends ${names}`;
}
