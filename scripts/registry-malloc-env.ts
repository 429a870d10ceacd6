/**
 * glibc malloc settings every launcher gives the registry process (scripts/start.ts, the cluster
 * shape, the benches; the Dockerfile's registry image and deploy/k8s/40-registry.yaml set the same,
 * test/scripts/registry-malloc-env.test.ts checks they agree). glibc reads them once, when the process
 * starts: Node has no call (mallopt, malloc_trim) that could set them from inside.
 *
 * - MALLOC_ARENA_MAX=2: the registry's threads (the DNS responder thread, libuv's pool, V8's platform
 *   workers) would otherwise each get an arena of their own (6 at 100,000 instances), each keeping
 *   the free memory its thread left.
 * - MALLOC_TRIM_THRESHOLD_=131072: glibc's default (128 KiB) made fixed, which also stops glibc from
 *   raising it (and the mmap threshold) after a large block is freed, so freed memory at the top of
 *   an arena goes back to the system instead of staying resident.
 *
 * Together, at 100,000 instances (bench/mem-diag.ts, built registry, after the churn stage): malloc's
 * resident memory ~80 → ~55 MB; figures in docs/registry.md (Memory).
 */
export const REGISTRY_MALLOC_ENV: Readonly<Record<string, string>> = {
  MALLOC_ARENA_MAX: '2',
  MALLOC_TRIM_THRESHOLD_: '131072',
};
