import { publishedCapabilities } from '@agent-reach/sdk/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../store/records.js';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import type { SrvWeight, WeightOf } from '../weights/weight-of.js';
import { handleMessage, type SnapshotProvider } from './packet-handler.js';
import { RRTYPE } from './rr.js';
import { Zone } from './zone.js';
import { exportZoneFile } from './zone-file.js';
import { queryBytes } from './zone-queries.js';
import { ZoneReplica } from './zone-replica.js';

const options = { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' };
const TYPES = [RRTYPE.A, RRTYPE.AAAA, RRTYPE.SVCB, RRTYPE.SRV, RRTYPE.TXT, RRTYPE.SOA, RRTYPE.NS, RRTYPE.ANY];

const id = fc.constantFrom(
  'a-1',
  'b-2',
  'c-3',
  'd-4',
  'e-5',
  'f-6',
  'g-7',
  'h-8',
  'i-9',
  'j-10',
  'k-11',
  'l-12',
);
const capability = fc.constantFrom('summarize', 'plan', 'agent', 'search', 'x');
const weight = fc.record({
  priority: fc.integer({ min: -5, max: 70_000 }),
  weight: fc.integer({ min: -5, max: 70_000 }),
});

type Step =
  | { kind: 'put'; id: string; capabilities: string[]; host: string; port: number; priority: number }
  | { kind: 'remove'; ids: string[] }
  | { kind: 'weights'; ids: string[]; value: SrvWeight; perCapability: boolean }
  | { kind: 'all-weights'; value: SrvWeight };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('put' as const),
      id,
      capabilities: fc.uniqueArray(capability, { minLength: 1, maxLength: 3 }),
      host: fc.constantFrom('10.0.0.1', '10.0.0.2', 'fd00::7'),
      port: fc.integer({ min: 1, max: 65_535 }),
      priority: fc.integer({ min: 0, max: 100 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('remove' as const), ids: fc.uniqueArray(id, { maxLength: 3 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('weights' as const),
      ids: fc.uniqueArray(id, { minLength: 1, maxLength: 4 }),
      value: weight,
      perCapability: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('all-weights' as const), value: weight }) },
);

/** The weight table a routing pass would publish: per instance, optionally per capability. */
class WeightTable {
  readonly table = new Map<string, { value: SrvWeight; perCapability: boolean }>();
  readonly weightOf: WeightOf = (record, capability) => {
    const held = this.table.get(record.instance_id);
    if (held === undefined) return { priority: 10, weight: Math.max(1, record.declaration.priority) };
    if (held.perCapability && capability !== undefined)
      return { priority: held.value.priority + capability.length, weight: held.value.weight };
    return held.value;
  };
}

/** The zone built from nothing, in one batch, at `serial`: the reference the live zone must equal. */
function fromScratch(records: readonly InstanceRecord[], weightOf: WeightOf, serial: number, zone: Zone) {
  const replica = new ZoneReplica(zone.settings);
  const weights = (record: InstanceRecord) => {
    const byCapability: Record<string, SrvWeight> = {};
    for (const capability of publishedCapabilities(record.declaration))
      byCapability[capability] = weightOf(record, capability);
    return { generic: weightOf(record), byCapability };
  };
  replica.apply({
    serial,
    put: records.map((record) => ({ record, weights: weights(record) })),
    weights: [],
    deleted: [],
  });
  return replica;
}

/** Every question worth asking about these names: each type, over UDP with and without EDNS and TCP. */
function questions(names: Iterable<string>): Buffer[] {
  const out: Buffer[] = [];
  for (const name of names) {
    const owner = name === '' ? 'agents.internal' : `${name}.agents.internal`;
    for (const type of TYPES) out.push(queryBytes(owner, type, 7));
    // Without EDNS (512 octets: truncation comes sooner), and a mixed-case spelling (the question is echoed as asked).
    out.push(queryBytes(owner, RRTYPE.SVCB, 8, false));
    out.push(queryBytes(owner.charAt(0).toUpperCase() + owner.slice(1), RRTYPE.SRV, 9));
  }
  return out;
}

function expectSameAnswers(live: SnapshotProvider, reference: SnapshotProvider): void {
  const names = new Set([
    ...live.snapshot().nodes.keys(),
    ...reference.snapshot().nodes.keys(),
    ...reference.snapshot().emptyNonTerminals,
    ...live.snapshot().emptyNonTerminals,
    '_tcp',
    '_agents',
    '_a2a._agents',
    'a-1',
    'z-99',
    '_plan._tcp',
    '_search._a2a._agents',
  ]);
  for (const msg of questions(names)) {
    for (const transport of ['udp', 'tcp'] as const) {
      const patched = handleMessage(live, msg, transport);
      const expected = handleMessage(reference, msg, transport);
      expect(patched?.toString('hex')).toBe(expected?.toString('hex'));
    }
  }
}

describe('LiveZone, patched change by change', () => {
  it('answers exactly what a zone built from scratch answers, after any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 20 }), (steps) => {
        const source = new FakeInstanceSource();
        const weights = new WeightTable();
        let now = 1_000_000_000_000;
        const zone = new Zone(source, { ...options, wallNow: () => now });
        zone.setWeightOf(weights.weightOf);
        for (const s of steps) {
          now += 500;
          if (s.kind === 'put') {
            const record = makeInstance(s.id, s);
            source.put({ ...record, declaration: { ...record.declaration, description: `desc ${s.port}` } });
          } else if (s.kind === 'remove') {
            const present = s.ids.filter((x) => source.get(x) !== undefined);
            if (present.length > 0) source.remove(...present);
          } else if (s.kind === 'weights') {
            for (const x of s.ids) weights.table.set(x, { value: s.value, perCapability: s.perCapability });
            zone.weightsChanged(s.ids);
          } else {
            for (const x of zone.instanceIds())
              weights.table.set(x, { value: s.value, perCapability: false });
            zone.weightsChanged();
          }
          const reference = fromScratch(source.all(), weights.weightOf, zone.serial, zone);
          expect(exportZoneFile(zone.snapshot())).toBe(exportZoneFile(reference.snapshot()));
          expectSameAnswers(zone, reference);
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});
