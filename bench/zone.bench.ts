import { handleMessage, RRTYPE, Zone, ZoneReplica } from '@agent-reach/registry';
import { FakeInstanceSource, makeInstance, queryBytes } from '@agent-reach/registry/testing';
import { type Figure, printFigures } from './lib/report.js';

/** Fleet sizes compared in one run: the cost of a change at the largest must stay within 2× of the smallest. */
const SMALL = 1_000;
const LARGE = Number(process.env.BENCH_ZONE_LARGE ?? 100_000);
/** Changes timed per figure (after as many untimed ones). */
const CHANGES = Number(process.env.BENCH_ZONE_CHANGES ?? 1_000);
/** Timed rounds per size (medians are reported), after one warm-up round. */
const ROUNDS = Number(process.env.BENCH_ZONE_ROUNDS ?? 5);
const APEX = 'agents.internal';
const options = { zone: APEX, ttlSeconds: 15, nameServerAddress: '127.0.0.1' };

/** Instance `i` of a fleet whose instances share `capabilities` capabilities round-robin. */
type InstanceRecord = ReturnType<typeof makeInstance>;

const instance = (prefix: string, i: number, capabilities: number): InstanceRecord =>
  makeInstance(`${prefix}-${i}`, {
    host: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
    port: 20_000 + (i % 40_000),
    capabilities: [`op_${i % capabilities}`],
  });

interface Fleet {
  source: FakeInstanceSource;
  zone: Zone;
  capabilities: number;
}

function fleet(size: number, capabilities: number): Fleet {
  const source = new FakeInstanceSource();
  const records: InstanceRecord[] = [];
  for (let i = 0; i < size; i++) records.push(instance('bench', i, capabilities));
  source.put(...records);
  const zone = new Zone(source, options);
  // Weights follow a table the bench moves, as the leader's weight pass does.
  const table = new Map<string, number>();
  zone.setWeightOf((record) => ({
    priority: table.get(record.instance_id) ?? 10,
    weight: table.get(record.instance_id) ?? 50,
  }));
  Object.assign(zone, { table });
  return { source, zone, capabilities };
}

/** The first questions after a change, over UDP: the capability's SVCB set (truncated when large) and the instance's address. */
function ask(f: Fleet, record: InstanceRecord): void {
  handleMessage(f.zone, svcbQuery(record), 'udp');
  handleMessage(f.zone, queryBytes(`${record.instance_id}.${APEX}`, RRTYPE.A), 'udp');
}

const svcbQuery = (record: InstanceRecord): Buffer =>
  queryBytes(`_${Object.keys(record.declaration.capabilities)[0]!}._a2a._agents.${APEX}`, RRTYPE.SVCB);

/** Microseconds for the first TCP answer of a capability's SVCB set after a change (its encoding, at most 64 KiB). */
function tcpAnswerCost(f: Fleet, size: number, round: number): number {
  const table = (f.zone as unknown as { table: Map<string, number> }).table;
  let spent = 0;
  for (let k = 0; k < CHANGES; k++) {
    const id = `bench-${(k * 7919) % size}`;
    table.set(id, 101 + ((k + round) % 100));
    f.zone.weightsChanged([id]);
    const started = performance.now();
    handleMessage(f.zone, svcbQuery(f.source.get(id)!), 'tcp');
    spent += performance.now() - started;
  }
  return (spent * 1000) / CHANGES;
}

/** Microseconds per change: a registration then its removal, each followed by the first queries. */
function registrationCost(f: Fleet, round: number): number {
  const started = performance.now();
  for (let k = round * CHANGES; k < (round + 1) * CHANGES; k++) {
    const record = instance('extra', k, f.capabilities);
    f.source.put(record);
    ask(f, record);
    f.source.remove(record.instance_id);
    ask(f, record);
  }
  return ((performance.now() - started) * 1000) / (2 * CHANGES);
}

/** Microseconds per weight change of one instance (its SRV and SVCB records move), with the first queries. */
function weightCost(f: Fleet, size: number, round: number): number {
  const table = (f.zone as unknown as { table: Map<string, number> }).table;
  const started = performance.now();
  for (let k = 0; k < CHANGES; k++) {
    const id = `bench-${(k * 7919) % size}`;
    table.set(id, 1 + ((k + round) % 100));
    f.zone.weightsChanged([id]);
    ask(f, f.source.get(id)!);
  }
  return ((performance.now() - started) * 1000) / CHANGES;
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** Milliseconds to lay the whole zone out from nothing (a replica given every instance at once). */
function fromScratchMs(f: Fleet): number {
  const put = [...f.zone.instanceIds()].map((id) => ({
    record: f.zone.recordOf(id)!,
    weights: f.zone.weightsOf(id)!,
  }));
  const started = performance.now();
  const replica = new ZoneReplica(f.zone.settings);
  replica.apply({ serial: f.zone.serial, put, weights: [], deleted: [] });
  replica.snapshot();
  return performance.now() - started;
}

/**
 * The cost of one zone change, at 1k and 100k instances in the same run (medians of rounds that
 * alternate the sizes): a registration (or its removal) and a weight change, each followed by the
 * first UDP queries that see it (the capability's SVCB set and the instance's address); apart, the
 * first TCP answer of the changed set, which grows with the set until its 64 KiB cap. Two fleet shapes:
 * 50 capabilities (2,000 instances each at 100k) and one capability every instance offers (one
 * SVCB set of 100,000 records). The reference is laying the whole zone out from nothing.
 */
export async function benchZone(): Promise<Figure[]> {
  const figures: Figure[] = [];
  for (const capabilities of [50, 1]) {
    const shape = capabilities === 1 ? 'one capability for all' : `${capabilities} capabilities`;
    const small = fleet(SMALL, capabilities);
    const large = fleet(LARGE, capabilities);
    const costs = {
      smallReg: [] as number[],
      largeReg: [] as number[],
      smallWeight: [] as number[],
      largeWeight: [] as number[],
      smallTcp: [] as number[],
      largeTcp: [] as number[],
    };
    // Rounds alternate the two sizes, so a change in the machine's load hits both alike; round 0 warms up.
    for (let round = 0; round <= ROUNDS; round++) {
      const order = round % 2 === 0 ? [small, large] : [large, small];
      const measured = order.map((f) => ({
        f,
        reg: registrationCost(f, round),
        weight: weightCost(f, f === small ? SMALL : LARGE, round),
        tcp: tcpAnswerCost(f, f === small ? SMALL : LARGE, round),
      }));
      if (round === 0) continue;
      for (const { f, reg, weight, tcp } of measured) {
        (f === small ? costs.smallReg : costs.largeReg).push(reg);
        (f === small ? costs.smallWeight : costs.largeWeight).push(weight);
        (f === small ? costs.smallTcp : costs.largeTcp).push(tcp);
      }
    }
    const smallReg = median(costs.smallReg);
    const smallWeight = median(costs.smallWeight);
    const largeReg = median(costs.largeReg);
    const largeWeight = median(costs.largeWeight);
    const smallTcp = median(costs.smallTcp);
    const largeTcp = median(costs.largeTcp);
    const rebuild = fromScratchMs(large);
    const n = LARGE.toLocaleString('en-US');
    figures.push(
      { name: `registration or removal, ${shape}, 1,000 instances`, value: smallReg, unit: 'µs' },
      {
        name: `registration or removal, ${shape}, ${n} instances`,
        value: largeReg,
        unit: 'µs',
        reference: { name: '1,000 instances', value: smallReg },
        target: { op: '<=', value: 2 * smallReg },
      },
      { name: `weight change, ${shape}, 1,000 instances`, value: smallWeight, unit: 'µs' },
      {
        name: `weight change, ${shape}, ${n} instances`,
        value: largeWeight,
        unit: 'µs',
        reference: { name: '1,000 instances', value: smallWeight },
        target: { op: '<=', value: 2 * smallWeight },
      },
      {
        name: `first TCP answer of the capability's SVCB set after a change, ${shape}, 1,000 instances`,
        value: smallTcp,
        unit: 'µs',
      },
      {
        name: `first TCP answer of the capability's SVCB set after a change, ${shape}, ${n} instances (at most 64 KiB encoded)`,
        value: largeTcp,
        unit: 'µs',
        reference: { name: '1,000 instances', value: smallTcp },
      },
      {
        name: `whole zone laid out from nothing, ${shape}, ${n} instances`,
        value: rebuild * 1000,
        unit: 'µs',
        reference: { name: `one registration at ${n}`, value: largeReg },
      },
    );
    small.zone.close();
    large.zone.close();
  }
  printFigures('Zone: cost of one change (with the first queries after it)', figures);
  return figures;
}
