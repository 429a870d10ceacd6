import { join, resolve } from 'node:path';
import { getHeapSpaceStatistics } from 'node:v8';

/**
 * What one registration costs the responder thread's replica: `tsx bench/replica-put.ts <checkout>…`
 * fills a Zone (made as the registry makes it, `laidOut: false`) and a ZoneReplica fed by a ZoneFeed
 * with BENCH_REPLICA_INSTANCES instances (50 agents, one capability each), encodes BENCH_REPLICA_PUTS
 * further registrations as the registry sends them (slices of JSON text), then times the replica's
 * side alone (decode and apply), checkouts alternated over BENCH_ROUNDS rounds: CPU µs and young-space
 * bytes allocated per put (run with `--max-semi-space-size=64 --min-semi-space-size=64` for the bytes,
 * so no scavenge falls inside a measured batch).
 */
const INSTANCES = Number(process.env.BENCH_REPLICA_INSTANCES ?? 1_000);
const PUTS = Number(process.env.BENCH_REPLICA_PUTS ?? 4_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const APEX = 'agents.internal';

const idOf = (i: number) => `bench-agent-${i % 50}-${(0x10000000 + i * 2654435761).toString(16).slice(-8)}`;
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_used_size;

async function load(root: string) {
  const dns = (file: string) => import(join(root, 'apps/registry/src', file));
  const { Zone } = await dns('dns/zone.ts');
  const { ZoneFeed } = await dns('dns/zone-feed.ts');
  const replicaModule = await dns('dns/zone-replica.ts');
  const { ZoneReplica } = replicaModule;
  // dns/update-text.ts since session 16 (declarations sent as texts, a decoder that keeps them); zone-replica.ts before.
  const text = await dns('dns/update-text.ts').catch(() => undefined);
  const encodedSlices: (update: unknown) => string[] = (text ?? replicaModule).encodedSlices;
  const newDecoder = (replica: unknown): ((encoded: string) => unknown) => {
    if (text === undefined) return replicaModule.decodeUpdate;
    const decoder = new text.UpdateDecoder(replica);
    return (encoded) => decoder.decode(encoded);
  };
  const { FakeInstanceSource, makeInstance } = await dns('testing/fake-instance-source.ts');
  const record = (i: number) =>
    makeInstance(idOf(i), { host: '127.0.0.1', port: 20_000 + (i % 40_000), capabilities: [`op_${i % 50}`] });
  /** A fresh zone, replica and feed, and the slices of PUTS registrations made after the fill, in batches of 8. */
  const setup = () => {
    const source = new FakeInstanceSource();
    for (let i = 0; i < INSTANCES; i++) source.put(record(i));
    const zone = new Zone(source, {
      zone: APEX,
      ttlSeconds: 15,
      nameServerAddress: '127.0.0.1',
      laidOut: false,
    });
    const slices: string[] = [];
    const feed = new ZoneFeed(zone, (update: unknown) => slices.push(...encodedSlices(update)));
    const replica = new ZoneReplica(zone.settings);
    replica.apply(feed.initial());
    for (let i = 0; i < PUTS; i += 8) {
      for (let j = i; j < i + 8; j++) source.put(record(INSTANCES + j));
      (feed as unknown as { flush(): void }).flush();
    }
    return { replica, slices: slices.splice(0), decode: newDecoder(replica) };
  };
  return { root, setup };
}

const roots = process.argv.slice(2).map((root) => resolve(root));
if (roots.length === 0) throw new Error('usage: tsx bench/replica-put.ts <checkout> [<checkout>…]');
const loaded = [];
for (const root of roots) loaded.push(await load(root));
process.stdout.write(`${INSTANCES} instances, ${PUTS} registrations in slices of 8\n`);
for (let round = 0; round < ROUNDS; round++) {
  for (const l of round % 2 === 0 ? loaded : [...loaded].reverse()) {
    const { replica, slices, decode } = l.setup();
    let bytes = 0;
    let measured = 0;
    let cpu = 0;
    for (const slice of slices) {
      const before = newSpace();
      const started = process.cpuUsage();
      replica.apply(decode(slice));
      const used = process.cpuUsage(started);
      cpu += used.user + used.system;
      const after = newSpace();
      if (after >= before) {
        bytes += after - before;
        measured++;
      }
    }
    process.stdout.write(
      `${l.root}: ${(cpu / PUTS).toFixed(1)} µs CPU per put, ${Math.round((bytes / measured) * (slices.length / PUTS))} B allocated per put (${measured} of ${slices.length} slices without a scavenge)\n`,
    );
  }
}
