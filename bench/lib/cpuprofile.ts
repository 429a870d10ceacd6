import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of a V8 `.cpuprofile` (`--cpu-prof`) this summary reads. */
interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A span of the monotonic clock in µs (`process.hrtime.bigint() / 1000n`): V8 stamps its samples on the same clock. */
export interface Window {
  fromUs: number;
  toUs: number;
}

/** Now on the clock `--cpu-prof` stamps its samples with (CLOCK_MONOTONIC), in µs. */
export function monotonicUs(): number {
  return Number(process.hrtime.bigint() / 1000n);
}

/** One function's share of the sampled time inside the windows. */
export interface ProfileLine {
  name: string;
  selfMs: number;
  /** Time with this function anywhere on the stack (counted once per sample). */
  totalMs: number;
}

export interface ProfileSummary {
  /** Sampled time inside the windows, idle included. */
  sampledMs: number;
  idleMs: number;
  gcMs: number;
  lines: ProfileLine[];
}

function label(frame: CpuProfile['nodes'][number]['callFrame']): string {
  const file = frame.url.replace(/^.*\/(apps|packages|node_modules)\//, '$1/').replace(/^file:\/\//, '');
  return `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

/**
 * Self and inclusive time per function over the samples of a profile that fall inside `windows`
 * (e.g. the timed wrk runs of one registry, leaving out its start and fill).
 */
export function summariseProfile(profile: CpuProfile, windows: Window[]): ProfileSummary {
  const parent = new Map<number, number>();
  const byId = new Map<number, CpuProfile['nodes'][number]>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let sampledUs = 0;
  let idleUs = 0;
  let gcUs = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]!;
    // A sample stands for the time up to the next one.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (!windows.some((w) => time >= w.fromUs && time < w.toUs)) continue;
    sampledUs += weight;
    const leaf = byId.get(profile.samples[i]!)!;
    const leafName = leaf.callFrame.functionName;
    if (leafName === '(idle)') idleUs += weight;
    if (leafName === '(garbage collector)') gcUs += weight;
    const leafLabel = label(leaf.callFrame);
    self.set(leafLabel, (self.get(leafLabel) ?? 0) + weight);
    const seen = new Set<string>();
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id)) {
      const name = label(byId.get(id)!.callFrame);
      if (seen.has(name)) continue;
      seen.add(name);
      total.set(name, (total.get(name) ?? 0) + weight);
    }
  }
  const lines = [...self.keys(), ...total.keys()]
    .filter((name, i, all) => all.indexOf(name) === i)
    .map((name) => ({ name, selfMs: (self.get(name) ?? 0) / 1000, totalMs: (total.get(name) ?? 0) / 1000 }));
  return { sampledMs: sampledUs / 1000, idleMs: idleUs / 1000, gcMs: gcUs / 1000, lines };
}

/** Reads the one `.cpuprofile` a process wrote into `dir` (`--cpu-prof-dir`). */
export function readProfileDir(dir: string): CpuProfile {
  const file = readdirSync(dir).find((name) => name.endsWith('.cpuprofile'));
  if (file === undefined) throw new Error(`no .cpuprofile in ${dir}`);
  return JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
}

/** The summary as text: busy time per operation, GC, then the top functions by self and by inclusive time. */
export function formatSummary(summary: ProfileSummary, operations: number, top = 25): string {
  const busy = summary.sampledMs - summary.idleMs;
  const per = (ms: number) => `${((ms * 1000) / Math.max(1, operations)).toFixed(1)} µs/op`;
  const pct = (ms: number) => `${((ms / Math.max(1e-9, busy)) * 100).toFixed(1)} %`;
  const rows = (key: 'selfMs' | 'totalMs') =>
    [...summary.lines]
      .filter((line) => !line.name.startsWith('(idle)') && !line.name.startsWith('(root)'))
      .sort((a, b) => b[key] - a[key])
      .slice(0, top)
      .map((line) => `  ${pct(line[key]).padStart(7)} ${per(line[key]).padStart(12)}  ${line.name}`)
      .join('\n');
  return [
    `sampled ${summary.sampledMs.toFixed(0)} ms, busy ${busy.toFixed(0)} ms = ${per(busy)} over ${operations} ops; GC ${pct(summary.gcMs)} (${per(summary.gcMs)})`,
    'self:',
    rows('selfMs'),
    'inclusive:',
    rows('totalMs'),
  ].join('\n');
}
