import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_BUILDS, buildApp } from '../../scripts/build.js';
import { isRunning, LineCollector, pollUntil, signalAndWait, trackChild } from '../harness/child-output.js';
import { freePort } from '../harness/ports.js';
import { REPO_ROOT } from '../harness/registry-process.js';

// No Docker daemon here: the Dockerfile is read as instructions, and its build stage's steps that make
// the images' files (pnpm build, pnpm deploy) are run for real; each image's file system is then put
// together from its COPY lines and its ENTRYPOINT started with plain node, as a user that is not root.

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string;
  from: string;
  steps: Instruction[];
}

/** The Dockerfile's stages, with line continuations joined and comments dropped. */
function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line.startsWith('#') || line === '')) continue;
    if (line.endsWith('\\')) pending += `${line.slice(0, -1)} `;
    else {
      logical.push(pending + line);
      pending = '';
    }
  }
  const args = new Map<string, string>();
  const stages: Stage[] = [];
  for (const line of logical) {
    const [op = '', ...rest] = line.split(/\s+/);
    const text = rest.join(' ');
    if (op.toUpperCase() === 'ARG' && stages.length === 0) {
      const [key, value = ''] = text.split('=');
      args.set(key ?? '', value);
    } else if (op.toUpperCase() === 'FROM') {
      const match = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(text);
      const from = (match?.[1] ?? '').replace(/\$\{(\w+)\}/g, (_, key: string) => args.get(key) ?? '');
      stages.push({ name: match?.[2] ?? `stage-${stages.length}`, from, steps: [] });
    } else {
      stages.at(-1)?.steps.push({ op: op.toUpperCase(), args: text });
    }
  }
  return stages;
}

const dockerfile = readFileSync(join(REPO_ROOT, 'Dockerfile'), 'utf8');
const stages = parseDockerfile(dockerfile);
const stage = (name: string) => {
  const found = stages.find((s) => s.name === name);
  if (!found) throw new Error(`no stage ${name}`);
  return found;
};
/** A stage's steps, its base stages' first (FROM another stage of the file). */
const chain = (s: Stage): Instruction[] => {
  const base = stages.find((other) => other.name === s.from);
  return [...(base ? chain(base) : []), ...s.steps];
};
const IMAGES = ['registry', 'orchestrator', 'console'] as const;

let work: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'reach-image-'));
  for (const target of APP_BUILDS) await buildApp(target);
  // The build stage's deploy step, with /out under the temporary directory. Prefer-offline: packages come
  // from the warm store, but pnpm deploy resolves again and needs the registry's metadata, which a fresh
  // machine (installed from the lockfile alone) has not cached.
  const deploy = stage('build').steps.find((s) => s.op === 'RUN' && s.args.includes(' deploy '));
  if (!deploy) throw new Error('the build stage has no pnpm deploy step');
  for (const command of deploy.args.split('&&')) {
    const words = command
      .trim()
      .split(/\s+/)
      .map((w) => (w.startsWith('/out/') ? join(work, w) : w));
    await promisify(execFile)(words[0]!, [...words.slice(1), '--prefer-offline'], {
      cwd: REPO_ROOT,
      timeout: 120_000,
    });
  }
}, 600_000);
afterAll(async () => {
  for (const child of children) if (isRunning(child)) await signalAndWait(child, 'SIGKILL');
  if (work) await rm(work, { recursive: true, force: true });
});

describe('Dockerfile', () => {
  it('is multi-stage, has no HEALTHCHECK, and every image runs as a user that is not root', () => {
    expect(stages.length).toBeGreaterThanOrEqual(3);
    expect(dockerfile).not.toMatch(/^\s*HEALTHCHECK/im);
    for (const name of IMAGES) {
      const users = chain(stage(name)).filter((s) => s.op === 'USER');
      expect(users.at(-1)?.args, name).toBeDefined();
      expect(users.at(-1)?.args).not.toMatch(/^(root|0)(:|$)/);
      // Slim base: the build toolchain stays in the build stage.
      expect(stage('runtime').from).toMatch(/slim|alpine|distroless/);
    }
  });

  it('copies only files that exist in the build context', () => {
    const ignored = readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8');
    for (const s of stages)
      for (const step of s.steps.filter((x) => x.op === 'COPY' && !x.args.includes('--from='))) {
        const sources = step.args.split(/\s+/).slice(0, -1);
        for (const source of sources) {
          if (source === '.') continue;
          expect(existsSync(join(REPO_ROOT, source)), `${source} (COPY in ${s.name})`).toBe(true);
          expect(ignored.split('\n'), `${source} is dockerignored`).not.toContain(source);
        }
      }
  });

  for (const name of IMAGES) {
    it(`the ${name} image starts its entry point from the build output and gets ready`, async () => {
      // The image's /app, put together from its COPY --from=build lines (/src is the repository).
      const root = join(work, `image-${name}`);
      for (const step of chain(stage(name)).filter((s) => s.op === 'COPY')) {
        const [from, source, target] = step.args.split(/\s+/);
        expect(from).toBe('--from=build');
        const real = source!.startsWith('/out/')
          ? join(work, source!)
          : join(REPO_ROOT, source!.replace(/^\/src\//, ''));
        expect(existsSync(real), `${source} exists after pnpm build and deploy`).toBe(true);
        await mkdir(dirname(join(root, target!)), { recursive: true });
        cpSync(real, join(root, target!), { recursive: true, dereference: false, verbatimSymlinks: true });
      }
      await mkdir(join(root, 'data'), { recursive: true });
      const entry = chain(stage(name)).findLast((s) => s.op === 'ENTRYPOINT');
      const argv = JSON.parse(entry?.args ?? '[]') as string[];
      expect(argv[0]).toBe('node');
      expect(argv[1]).toBe(`apps/${name}/dist/main.js`);
      const [port, dnsPort] = [await freePort(), await freePort()];
      const listen = `127.0.0.1:${port}`;
      const config = {
        control_plane: { listen: name === 'registry' ? listen : '127.0.0.1:1' },
        dns: { listen: `127.0.0.1:${dnsPort}` },
        orchestrator: { listen: name === 'orchestrator' ? listen : '127.0.0.1:1' },
        console: { listen: name === 'console' ? listen : '127.0.0.1:1' },
      };
      await writeFile(join(root, 'reach.yaml'), JSON.stringify(config));
      const logs = new LineCollector();
      const child = spawn('node', argv.slice(1), {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', REACH_CONFIG: join(root, 'reach.yaml') },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      trackChild(child);
      children.push(child);
      logs.attach(child.stdout);
      logs.attach(child.stderr);
      await pollUntil(
        async () => {
          if (!isRunning(child)) throw new Error(`${name} exited:\n${logs.tail()}`);
          const res = await fetch(`http://${listen}/readyz`).catch(() => undefined);
          await res?.body?.cancel();
          return res?.status === 200 ? true : undefined;
        },
        60_000,
        () => `${name} not ready:\n${logs.tail()}`,
      );
      expect((await signalAndWait(child, 'SIGTERM')).code).toBe(0);
    });
  }
});
