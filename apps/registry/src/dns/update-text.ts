import type { Declaration } from '@agent-reach/sdk/protocol';
import type { InstanceEntryData, InstanceWeights } from './instance-entry.js';
import { type PublishedInstance, sliceUpdate, type ZoneUpdate } from './zone-replica.js';

/**
 * A slice as sent: each entry's declaration and each weights object is the number of a text that
 * follows the JSON, one a line (JSON text has no raw newline), each distinct object once.
 */
type SentPut =
  | PublishedInstance
  | { entry: Omit<InstanceEntryData, 'declaration'> & { declaration: number }; weights: number };
interface SentUpdate {
  serial: number;
  put: SentPut[];
  weights: Array<[instanceId: string, weights: number]>;
  deleted: string[];
}

/** Each declaration's and weights object's JSON text, made once per object (a version's instances share one declaration, equal weights share one object). */
const texts = new WeakMap<object, string>();

function textOf(value: object): string {
  let text = texts.get(value);
  if (text === undefined) {
    text = JSON.stringify(value);
    texts.set(value, text);
  }
  return text;
}

/** One slice as text: its JSON, with declarations and weights as texts of their own after it. */
function encodeSlice(slice: ZoneUpdate): string {
  const lines: string[] = [];
  const lineOf = new Map<object, number>();
  const line = (value: object): number => {
    let at = lineOf.get(value);
    if (at === undefined) {
      at = lines.length;
      lines.push(textOf(value));
      lineOf.set(value, at);
    }
    return at;
  };
  const put = slice.put.map((published): SentPut => {
    if (!('entry' in published)) return published;
    const { entry, weights } = published;
    return { entry: { ...entry, declaration: line(entry.declaration) }, weights: line(weights) };
  });
  const weights = slice.weights.map(([id, w]): [string, number] => [id, line(w)]);
  if (lines.length === 0) return JSON.stringify(slice);
  const sent: SentUpdate = { serial: slice.serial, put, weights, deleted: slice.deleted };
  return `${JSON.stringify(sent)}\n${lines.join('\n')}`;
}

/**
 * `update` as its slices (sliceUpdate), each as text of its own, for a worker that decodes one per
 * event-loop turn (UpdateDecoder). Sent as objects, the slices were decoded on arrival: a worker's
 * port deserialises every message waiting for it in one task (Node's MessagePort takes all that are
 * queued, at least 1,000), so a burst of slices was one long task of the responder thread however
 * finely it was cut; a string is only copied on arrival. JSON, not v8.serialize: 4-7x less CPU on
 * both sides for these shapes (16 registrations: 48 + 65 µs against 346 + 256 µs; 256 weights: 123 +
 * 144 µs against 571 + 350 µs; a structured clone, what postMessage did, 178 and 463 µs). Each
 * declaration and weights object goes as a text of its own, which the worker looks up among those it
 * has parsed before: most registrations repeat one of a few declarations and a few weights, and
 * parsing them was most of what decoding a registration allocated on the responder thread.
 */
export function encodedSlices(update: ZoneUpdate): string[] {
  return sliceUpdate(update).map(encodeSlice);
}

/** Distinct texts of each kind a decoder keeps parsed; past this it starts over (it only saves parses). */
const MAX_TEXTS = 1024;

/** Parsed values by their JSON text, at most MAX_TEXTS, each as `canonical` hands it back. */
class ParsedTexts<T> {
  private readonly byText = new Map<string, T>();

  constructor(private readonly canonical: (value: T) => T) {}

  get(text: string): T {
    const known = this.byText.get(text);
    if (known !== undefined) return known;
    const value = this.canonical(JSON.parse(text) as T);
    if (this.byText.size >= MAX_TEXTS) this.byText.clear();
    // A key of its own, not a view that would keep the whole message alive.
    this.byText.set(Buffer.from(text).toString(), value);
    return value;
  }
}

/** Where a decoder finds the objects a replica already shares (a ZoneReplica). */
export interface SharedValues {
  sharedDeclaration(declaration: Declaration): Declaration;
  sharedWeights(weights: InstanceWeights): InstanceWeights;
}

const unshared: SharedValues = { sharedDeclaration: (d) => d, sharedWeights: (w) => w };

/**
 * Turns the texts encodedSlices made back into slices. A declaration or weights text it has seen is
 * not parsed again: the slice gets the object it got the first time (equal text, equal value), which
 * is the one `shared` (the replica) already keeps, so the replica adopts it without comparing.
 */
export class UpdateDecoder {
  private readonly declarations: ParsedTexts<Declaration>;
  private readonly weights: ParsedTexts<InstanceWeights>;

  constructor(shared: SharedValues = unshared) {
    this.declarations = new ParsedTexts((d) => shared.sharedDeclaration(d));
    this.weights = new ParsedTexts((w) => shared.sharedWeights(w));
  }

  decode(encoded: string): ZoneUpdate {
    const end = encoded.indexOf('\n');
    if (end < 0) return JSON.parse(encoded) as ZoneUpdate;
    const sent = JSON.parse(encoded.slice(0, end)) as SentUpdate;
    // Where each text line starts; line i ends one before line i+1 starts.
    const starts = [end + 1];
    for (let at = encoded.indexOf('\n', end + 1); at >= 0; at = encoded.indexOf('\n', at + 1))
      starts.push(at + 1);
    starts.push(encoded.length + 1);
    // A view of the message (V8 slices, not copies, a substring): looked up, and copied only when new.
    const line = (i: number): string => {
      if (i < 0 || i >= starts.length - 1) throw new Error(`zone update: no text ${i}`);
      return encoded.slice(starts[i], starts[i + 1]! - 1);
    };
    for (const put of sent.put) {
      if (!('entry' in put) || typeof put.weights !== 'number') continue;
      const published = put as unknown as { entry: InstanceEntryData; weights: InstanceWeights };
      published.entry.declaration = this.declarations.get(line(put.entry.declaration as number));
      published.weights = this.weights.get(line(put.weights));
    }
    for (const pair of sent.weights)
      (pair as unknown as [string, InstanceWeights])[1] = this.weights.get(line(pair[1]));
    return sent as unknown as ZoneUpdate;
  }
}
