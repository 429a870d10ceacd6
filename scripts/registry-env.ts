/**
 * The environment every launcher gives the registry process (scripts/start.ts, the cluster shape, the
 * benches; the Dockerfile's registry image and deploy/k8s/40-registry.yaml set the same values,
 * test/scripts/registry-env.test.ts checks they agree). Both are read once, when the process starts:
 * neither glibc's malloc settings nor the size of V8's thread pool can be changed from inside.
 *
 * MALLOC_ARENA_MAX=2: the registry's threads (the DNS responder thread, libuv's pool, V8's platform
 * workers) would otherwise each get an arena of their own (6 at 100,000 instances), each keeping the
 * free memory its thread left. Figures in docs/registry.md (Memory).
 *
 * NODE_OPTIONS=--v8-pool-size=1: one V8 background thread (concurrent marking, parallel scavenging,
 * sweeping, compiling), not Node's default four. On the two cores the registry is sized for (the
 * Kubernetes limit is one CPU), four helpers running the main isolate's collections took CPU from the
 * DNS responder thread: DNS p99 under churn at 100,000 instances 4.07–5.00 ms with one (median 4.45)
 * against 4.53–7.31 (median 5.0) with four, six alternated runs each (docs/registry.md, "Threads").
 *
 * Not kept: MALLOC_TRIM_THRESHOLD_=131072. Setting it turns off glibc's dynamic mmap threshold, so every
 * block of 128 KiB or more is mapped and unmapped again: registrations cost 10–20 % more CPU (alternated
 * fills of 30,000 and 100,000 instances, built registry: 299–383 against 257–346 µs, arena cap alone
 * 247–297 µs) for a few MB of RSS.
 */
export const REGISTRY_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  NODE_OPTIONS: '--v8-pool-size=1',
};

/**
 * REGISTRY_ENV for a registry started from `inherited` (the launcher's environment): a value the
 * caller already sets wins, and NODE_OPTIONS it already has come after ours (so a flag of theirs,
 * `--v8-pool-size=4` say, overrides ours; a flag on node's command line overrides both).
 */
export function registryEnv(inherited: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(REGISTRY_ENV)) env[key] = inherited[key] ?? value;
  const theirs = inherited.NODE_OPTIONS?.trim();
  env.NODE_OPTIONS = theirs ? `${REGISTRY_ENV.NODE_OPTIONS} ${theirs}` : REGISTRY_ENV.NODE_OPTIONS!;
  return env;
}
