/**
 * The glibc malloc setting every launcher gives the registry process (scripts/start.ts, the cluster
 * shape, the benches; the Dockerfile's registry image and deploy/k8s/40-registry.yaml set the same,
 * test/scripts/registry-malloc-env.test.ts checks they agree). glibc reads them once, when the process
 * starts: Node has no call (mallopt, malloc_trim) that could set them from inside.
 *
 * MALLOC_ARENA_MAX=2: the registry's threads (the DNS responder thread, libuv's pool, V8's platform
 * workers) would otherwise each get an arena of their own (6 at 100,000 instances), each keeping the
 * free memory its thread left. Figures in docs/registry.md (Memory).
 *
 * Not kept: MALLOC_TRIM_THRESHOLD_=131072. Setting it turns off glibc's dynamic mmap threshold, so every
 * block of 128 KiB or more is mapped and unmapped again: registrations cost 10–20 % more CPU (alternated
 * fills of 30,000 and 100,000 instances, built registry: 299–383 against 257–346 µs, arena cap alone
 * 247–297 µs) for a few MB of RSS.
 */
export const REGISTRY_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
};
