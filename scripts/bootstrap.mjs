// The README's two commands start here, on a machine that may have nothing but Node and npm:
//   npm start  → pnpm and the workspace if missing, then the whole embedded system (scripts/start.ts)
//   npm test   → the Debian packages of scripts/system-packages.txt, Postgres, pnpm and the workspace,
//                then every test (vitest)
// Plain JavaScript with no dependencies, because it runs before `pnpm install` has.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkSystemTools, installCommand, readSystemPackages } from './prerequisites.mjs';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PNPM_VERSION = '9.15.9';
const DEFAULT_DATABASE_URL = 'postgres://postgres@127.0.0.1:5432/test';

function say(line) {
  process.stderr.write(`[setup] ${line}\n`);
}

function fail(lines) {
  for (const line of lines) process.stderr.write(`${line}\n`);
  process.exit(1);
}

function runStep(command, args, env = process.env) {
  const result = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env });
  return result.status === 0;
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
}

/** Installs the missing Debian packages as root with apt; otherwise stops, naming each and the command. */
function ensureSystemTools() {
  const packages = readSystemPackages(join(ROOT, 'scripts/system-packages.txt'));
  let missing = checkSystemTools(packages, process.env.PATH ?? '');
  if (missing.length === 0) return;
  const canInstall = process.getuid?.() === 0 && onPath('apt-get');
  if (canInstall) {
    say(`installing ${missing.map((p) => p.pkg).join(' ')}`);
    runStep('apt-get', ['update', '-q']);
    runStep(
      'apt-get',
      ['install', '-y', '-q', '--no-install-recommends', ...new Set(missing.map((p) => p.pkg))],
      {
        ...process.env,
        DEBIAN_FRONTEND: 'noninteractive',
      },
    );
    // Debian starts etcd as a service on install; the tests start their own on free ports.
    spawnSync('systemctl', ['stop', 'etcd'], { stdio: 'ignore' });
    missing = checkSystemTools(packages, process.env.PATH ?? '');
    if (missing.length === 0) return;
  }
  fail([
    'The tests need tools that are not installed:',
    ...missing.map((p) => `  ${p.command.padEnd(10)} (Debian package ${p.pkg}: ${p.purpose})`),
    '',
    canInstall ? 'apt-get could not install them. Run:' : 'Install them, then run the tests again:',
    `  ${installCommand(missing)}`,
  ]);
}

/** Finds Postgres at DATABASE_URL (default: the local test database), starting the local cluster if it is down. */
function ensurePostgres() {
  process.env.DATABASE_URL ??= DEFAULT_DATABASE_URL;
  const url = new URL(process.env.DATABASE_URL);
  const host = url.hostname || '127.0.0.1';
  const port = url.port || '5432';
  const ready = () =>
    spawnSync('pg_isready', ['-q', '-h', host, '-p', port], { stdio: 'ignore' }).status === 0;
  if (!onPath('pg_isready')) {
    say('pg_isready is not installed; assuming Postgres is reachable at DATABASE_URL');
    return;
  }
  if (ready()) return;
  if (existsSync('/etc/postgresql') && onPath('pg_ctlcluster')) {
    for (const version of spawnSync('ls', ['/etc/postgresql'])
      .stdout.toString()
      .split(/\s+/)
      .filter(Boolean)) {
      say(`starting Postgres ${version}`);
      spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
        stdio: 'inherit',
      });
    }
    for (let i = 0; i < 30 && !ready(); i++) spawnSync('sleep', ['1']);
    if (ready()) return;
  }
  fail([
    `Postgres is not answering at ${host}:${port} (DATABASE_URL=${process.env.DATABASE_URL}).`,
    'Start it, or point DATABASE_URL at one, then run the tests again.',
  ]);
}

function ensurePnpm() {
  if (onPath('pnpm')) return;
  say(`installing pnpm ${PNPM_VERSION}`);
  if (!runStep('npm', ['i', '-g', `pnpm@${PNPM_VERSION}`]))
    fail([`Could not install pnpm. Run: npm i -g pnpm@${PNPM_VERSION}`]);
}

/** Installs the workspace when node_modules is missing or was installed from another lockfile. */
function ensureWorkspace() {
  const installed = join(ROOT, 'node_modules/.pnpm/lock.yaml');
  const lock = join(ROOT, 'pnpm-lock.yaml');
  if (existsSync(installed) && readFileSync(installed, 'utf8') === readFileSync(lock, 'utf8')) return;
  ensurePnpm();
  say('installing the workspace (pnpm install)');
  if (!runStep('pnpm', ['install', '--frozen-lockfile'])) fail(['pnpm install failed (see above).']);
}

/** Runs the child in the foreground and passes signals on; its exit code becomes ours. */
function handOver(child, signals) {
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => {
      if (signals.includes(signal)) child.kill(signal);
    });
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

/** scripts/start.ts under tsx; if this launcher dies, even by SIGKILL, it stops itself (exit-with-parent.mjs). */
function startSystem(args) {
  const preload = new URL('./exit-with-parent.mjs', import.meta.url).href;
  const child = spawn(
    process.execPath,
    ['--import', preload, '--import', 'tsx', 'scripts/start.ts', ...args],
    {
      cwd: ROOT,
      stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    },
  );
  // start.ts stops once however many signals arrive, so Ctrl-C (to the whole group) may reach it twice.
  handOver(child, ['SIGINT', 'SIGTERM', 'SIGHUP']);
}

function runTests(args) {
  const child = spawn(join(ROOT, 'node_modules/.bin/vitest'), ['run', ...args], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  // Ctrl-C reaches vitest through the terminal's process group; a second SIGINT would abort its clean-up.
  handOver(child, ['SIGTERM', 'SIGHUP']);
}

const [command, ...given] = process.argv.slice(2);
// `npm start -- --port-base N` drops the `--`; pnpm (`pnpm start -- …`) passes it on: take both.
const rest = given[0] === '--' ? given.slice(1) : given;
switch (command) {
  case 'start':
    ensureWorkspace();
    startSystem(rest);
    break;
  case 'test':
    ensureSystemTools();
    ensurePostgres();
    ensureWorkspace();
    runTests(rest);
    break;
  case 'setup':
    ensureSystemTools();
    ensurePostgres();
    ensureWorkspace();
    break;
  default:
    fail(['usage: node scripts/bootstrap.mjs start|test|setup [args…]']);
}
