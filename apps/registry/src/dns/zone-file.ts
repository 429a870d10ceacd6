import { InstanceEntry } from './instance-entry.js';
import { absoluteName } from './names.js';
import { RRTYPE, RRTYPE_NAME, type ZoneRr } from './rr.js';
import type { RrSet, ZoneNode, ZoneSnapshot } from './zone-snapshot.js';

/** Names (or records of a shared name) copied and sorted between two yields while freezing: a few ms. */
const SLICE = 2048;
/** Records written per piece of the exported text: ~2 ms (an SVCB's text costs ~30-50 µs). */
const LINES_PER_PIECE = 64;

/** An RRset's records as they were when the zone was frozen. */
interface FrozenSet {
  readonly type: number;
  readonly ttl: number;
  readonly rrs: readonly ZoneRr[];
}

/**
 * A zone at one serial that later changes cannot reach: what an export reads while the live zone
 * keeps changing. A snapshot is not that: its names and the RRsets that capabilities share are the
 * live zone's, patched in place by every change. Instance names are immutable (a change replaces
 * them), so they are kept as they are; the few shared names get copies of their sets.
 */
export interface FrozenZone {
  readonly apex: string;
  readonly serial: number;
  readonly ttl: number;
  readonly soa: RrSet;
  /** Runs of names (the apex left out), each sorted; merged in order while writing. */
  readonly runs: readonly string[][];
  readonly names: ReadonlyMap<string, InstanceEntry | readonly FrozenSet[]>;
  readonly apexSets: readonly FrozenSet[];
}

/** Awaited between slices of work. */
export type Pause = () => Promise<void> | void;

/** Yields to the event loop (I/O and timers run) before the next slice. */
export const yieldToEventLoop: Pause = () => new Promise<void>((resolve) => setImmediate(resolve));

const byType = (a: FrozenSet, b: FrozenSet) => a.type - b.type;

/** A name's sets, sorted by type, copied now. */
function frozenSets(node: ZoneNode): FrozenSet[] {
  const sets: FrozenSet[] = [];
  for (const set of node.rrsets.values()) sets.push({ type: set.type, ttl: set.ttl, rrs: set.rrs });
  return sets.sort(byType);
}

/** An instance's own name is replaced on change, never patched: it is kept and read when written. */
const frozenNode = (node: ZoneNode): InstanceEntry | readonly FrozenSet[] =>
  node instanceof InstanceEntry ? node : frozenSets(node);

/** Copies what an export needs of `snapshot`, one slice of names per step; the last step returns it. */
function* freezing(snapshot: ZoneSnapshot): Generator<void, FrozenZone> {
  const names = new Map<string, InstanceEntry | readonly FrozenSet[]>();
  const runs: string[][] = [];
  let run: string[] = [];
  let apexSets: FrozenSet[] = [];
  let work = 0;
  for (const [name, node] of snapshot.nodes) {
    if (name === '') {
      apexSets = frozenSets(node).filter((set) => set.type !== RRTYPE.SOA);
      continue;
    }
    const frozen = frozenNode(node);
    names.set(name, frozen);
    run.push(name);
    // A name that capabilities share can hold 100,000 records: its copy counts as that much work.
    if (!(frozen instanceof InstanceEntry)) for (const set of frozen) work += set.rrs.length;
    if (++work < SLICE) continue;
    work = 0;
    runs.push(run.sort());
    run = [];
    yield;
  }
  if (run.length > 0) runs.push(run.sort());
  const { apex, serial, ttl, soa } = snapshot;
  return { apex, serial, ttl, soa, runs, names, apexSets };
}

/**
 * Freezes `snapshot` with `pause` awaited between slices. The caller keeps the zone from changing
 * until the promise settles (the responder thread holds its updates meanwhile).
 */
export async function freezeZone(snapshot: ZoneSnapshot, pause: Pause): Promise<FrozenZone> {
  const steps = freezing(snapshot);
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value;
    await pause();
  }
}

/** Freezes `snapshot` in one go (nothing else runs meanwhile, so nothing can change it). */
export function freezeZoneNow(snapshot: ZoneSnapshot): FrozenZone {
  const steps = freezing(snapshot);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** The names of sorted runs in one sorted order (a merge: sorting 100,000 names at once blocks ~0.2 s). */
function* merged(runs: readonly string[][]): Generator<string> {
  const at = runs.map(() => 0);
  for (;;) {
    let best = -1;
    for (let i = 0; i < runs.length; i++) {
      const name = runs[i]![at[i]!];
      if (name !== undefined && (best < 0 || name < runs[best]![at[best]!]!)) best = i;
    }
    if (best < 0) return;
    yield runs[best]![at[best]!++]!;
  }
}

function typeName(type: number): string {
  return RRTYPE_NAME[type] ?? `TYPE${type}`;
}

/** The master-file lines of every record, one string each. */
function* lines(owner: string, sets: Iterable<FrozenSet>): Generator<string> {
  for (const set of sets) {
    const prefix = `${owner}\t${set.ttl}\tIN\t${typeName(set.type)}\t`;
    for (const rr of set.rrs) yield `${prefix}${rr.text}\n`;
  }
}

/** Every record's line in order: the SOA and the apex's other sets, then each name in sorted order. */
function* zoneLines(zone: FrozenZone): Generator<string> {
  yield* lines(absoluteName('', zone.apex), [zone.soa, ...zone.apexSets]);
  for (const name of merged(zone.runs)) {
    const held = zone.names.get(name)!;
    yield* lines(absoluteName(name, zone.apex), held instanceof InstanceEntry ? frozenSets(held) : held);
  }
}

/**
 * The zone as an RFC 1035 master file, in pieces of LINES_PER_PIECE records (a record's presentation
 * text costs up to ~50 µs, an SVCB's, and one shared name can hold 100,000 records, so pieces are
 * counted in lines, not names): `$ORIGIN`, `$TTL`, the SOA first, then every name in sorted order
 * with absolute owners; SVCB in RFC 9460 presentation form. Any standard DNS server (knot, BIND,
 * CoreDNS `file`) can serve it as a snapshot.
 */
export function* zoneFileChunks(zone: FrozenZone): Generator<string> {
  let text = `; Agent Reach zone ${zone.apex}, serial ${zone.serial}\n$ORIGIN ${zone.apex}.\n$TTL ${zone.ttl}\n`;
  let count = 0;
  for (const line of zoneLines(zone)) {
    text += line;
    if (++count % LINES_PER_PIECE !== 0) continue;
    yield text;
    text = '';
  }
  if (text !== '') yield text;
}

/** The whole zone file of `snapshot` at once (tests and small zones; the HTTP export streams chunks). */
export function exportZoneFile(snapshot: ZoneSnapshot): string {
  return [...zoneFileChunks(freezeZoneNow(snapshot))].join('');
}

/** A zone file being produced: the serial it holds and its text in pieces. */
export interface ZoneExport {
  readonly serial: number;
  /** The text in pieces, each produced when asked for; ending the iteration early stops the work. */
  readonly chunks: AsyncIterable<string>;
}

/**
 * Exports `snapshot` on this thread: frozen in one go (~0.1-0.2 s at 100,000 instances: nothing can
 * change it meanwhile), then written a piece at a time, each when the reader asks, with a yield
 * before it so answers and requests run in between.
 */
export function exportOnThisThread(snapshot: ZoneSnapshot): ZoneExport {
  const frozen = freezeZoneNow(snapshot);
  async function* chunks(): AsyncGenerator<string> {
    for (const chunk of zoneFileChunks(frozen)) {
      await yieldToEventLoop();
      yield chunk;
    }
  }
  return { serial: frozen.serial, chunks: chunks() };
}
