import { readFileSync } from 'node:fs';

/**
 * The collections `--trace-gc` logged to `file` from byte `from` (up to byte `to`), per isolate
 * (`[pid:0x…]`): e.g. `0x5a1c… 12 Scavenge (max 0.61 ms, total 4.20 ms)`. From a `--trace-gc-nvp` log
 * (BENCH_CHURN_NODE_FLAGS) also the bytes the isolate allocated and its scavenges promoted:
 * `(max …, total …; 46.2 MB allocated, 4.25 MB promoted)`.
 */
export function gcSince(file: string, from: number, to?: number): string {
  const text = readFileSync(file).subarray(from, to).toString('utf8');
  interface Entry {
    count: number;
    max: number;
    total: number;
    kinds: Set<string>;
    /** Bytes, from nvp lines only. */
    allocated: number;
    promoted: number;
    nvp: boolean;
  }
  const by = new Map<string, Entry>();
  const entryOf = (isolate: string, pause: number, kind: string): Entry => {
    const entry = by.get(isolate) ?? {
      count: 0,
      max: 0,
      total: 0,
      kinds: new Set<string>(),
      allocated: 0,
      promoted: 0,
      nvp: false,
    };
    entry.count++;
    entry.max = Math.max(entry.max, pause);
    entry.total += pause;
    entry.kinds.add(kind);
    by.set(isolate, entry);
    return entry;
  };
  for (const [, isolate, kind, pause] of text.matchAll(
    /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: ([A-Za-z-]+(?: [A-Za-z-]+)?)\b.*?MB, ([\d.]+) \//gm,
  ))
    entryOf(isolate!, Number(pause), kind!);
  const nvpKinds: Record<string, string> = { s: 'Scavenge', mc: 'Mark-Compact', ms: 'Minor-Mark-Sweep' };
  for (const line of nvpLines(text)) {
    const entry = entryOf(line.isolate, line.value('pause'), nvpKinds[line.kind] ?? line.kind);
    entry.nvp = true;
    entry.allocated += line.value('allocated');
    entry.promoted += line.value('promoted');
  }
  if (by.size === 0) return 'none';
  const mb = (bytes: number) => (bytes / 1e6).toFixed(1);
  return [...by]
    .map(
      ([isolate, e]) =>
        `${isolate} ${e.count} ${[...e.kinds].join('/')} (max ${e.max.toFixed(2)} ms, total ${e.total.toFixed(2)} ms${
          e.nvp ? `; ${mb(e.allocated)} MB allocated, ${mb(e.promoted)} MB promoted` : ''
        })`,
    )
    .join('; ');
}

/** What `--trace-gc-nvp` logged for one isolate over a stretch of its log. */
export interface GcTotals {
  scavenges: number;
  /** Mark-compacts (full collections), incremental or not. */
  markCompacts: number;
  /** Pause ms, all kinds. */
  pauseMs: number;
  /** Bytes the scavenges copied from the young generation into the old one. */
  promoted: number;
  /** Bytes the scavenges copied within the young generation (survived one scavenge, not yet promoted). */
  survived: number;
}

/**
 * The collections `--trace-gc-nvp` logged to `file` from byte `from` (up to byte `to`), summed for the
 * main isolate (the first one the log names; a worker's isolate, e.g. the DNS responder thread, is left
 * out): how many, their pauses, and the bytes scavenges promoted to the old generation — what outlived
 * two scavenges, i.e. what the work of that stretch kept alive for a while.
 */
export function gcTotalsSince(file: string, from: number, to?: number): GcTotals {
  const text = readFileSync(file).toString('utf8');
  const mainIsolate = /^\[\d+:(0x[0-9a-f]+)\]/m.exec(text)?.[1];
  const totals: GcTotals = { scavenges: 0, markCompacts: 0, pauseMs: 0, promoted: 0, survived: 0 };
  const stretch = Buffer.from(text).subarray(from, to).toString('utf8');
  for (const line of nvpLines(stretch)) {
    if (line.isolate !== mainIsolate) continue;
    if (line.kind === 's') {
      totals.scavenges++;
      totals.promoted += line.value('promoted');
      totals.survived += line.value('new_space_survived');
    } else if (line.kind === 'mc') totals.markCompacts++;
    totals.pauseMs += line.value('pause');
  }
  return totals;
}

/** One `--trace-gc-nvp` line: `[pid:0x…] 1234 ms: pause=1.9 mutator=76.0 gc=s … allocated=3713264 promoted=224936 …`. */
interface NvpLine {
  isolate: string;
  /** `s` scavenge, `mc` mark-compact, `ms` minor mark-sweep. */
  kind: string;
  /** A numeric field by name (0 when the line has none). */
  value(name: string): number;
}

/** The `--trace-gc-nvp` lines of `text` (the two summaries above read them alike). */
function* nvpLines(text: string): Generator<NvpLine> {
  for (const [, isolate, fields] of text.matchAll(/^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (pause=.*)$/gm)) {
    yield {
      isolate: isolate!,
      kind: /(?:^| )gc=(\w+)/.exec(fields!)?.[1] ?? '',
      value: (name) => Number(new RegExp(`(?:^| )${name}=([\\d.]+)`).exec(fields!)?.[1] ?? 0),
    };
  }
}
