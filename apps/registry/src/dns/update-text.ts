import type { Declaration } from '@agent-reach/sdk/protocol';
import type { InstanceEntryData } from './instance-entry.js';
import { type PublishedInstance, sliceUpdate, type ZoneUpdate } from './zone-replica.js';

/**
 * A slice as sent: each entry's declaration is an index into the declaration texts that follow the
 * JSON, one a line (JSON text has no raw newline), each distinct declaration once.
 */
type SentPut =
  | PublishedInstance
  | { entry: Omit<InstanceEntryData, 'declaration'> & { declaration: number } };

/** Each declaration's JSON text, made once per declaration object (a version's instances share one). */
const texts = new WeakMap<Declaration, string>();

function declarationText(declaration: Declaration): string {
  let text = texts.get(declaration);
  if (text === undefined) {
    text = JSON.stringify(declaration);
    texts.set(declaration, text);
  }
  return text;
}

/** One slice as text: its JSON, with the entries' declarations as texts of their own after it. */
function encodeSlice(slice: ZoneUpdate): string {
  const lines: string[] = [];
  const lineOf = new Map<Declaration, number>();
  const put: SentPut[] = slice.put.map((published) => {
    if (!('entry' in published)) return published;
    const { declaration } = published.entry;
    let line = lineOf.get(declaration);
    if (line === undefined) {
      line = lines.length;
      lines.push(declarationText(declaration));
      lineOf.set(declaration, line);
    }
    return { entry: { ...published.entry, declaration: line }, weights: published.weights };
  });
  const json = JSON.stringify(lines.length === 0 ? slice : { ...slice, put });
  return lines.length === 0 ? json : `${json}\n${lines.join('\n')}`;
}

/**
 * `update` as its slices (sliceUpdate), each as text of its own, for a worker that decodes one per
 * event-loop turn (UpdateDecoder). Sent as objects, the slices were decoded on arrival: a worker's
 * port deserialises every message waiting for it in one task (Node's MessagePort takes all that are
 * queued, at least 1,000), so a burst of slices was one long task of the responder thread however
 * finely it was cut; a string is only copied on arrival. JSON, not v8.serialize: 4-7x less CPU on
 * both sides for these shapes (16 registrations: 48 + 65 µs against 346 + 256 µs; 256 weights: 123 +
 * 144 µs against 571 + 350 µs; a structured clone, what postMessage did, 178 and 463 µs). Each
 * declaration goes as its own text, which the worker looks up among those it has parsed before: most
 * registrations repeat one of a few declarations, and parsing it was 60 % of what a registration's
 * decode allocated on the responder thread.
 */
export function encodedSlices(update: ZoneUpdate): string[] {
  return sliceUpdate(update).map(encodeSlice);
}

/** Distinct declaration texts a decoder keeps parsed; past this it starts over (it only saves parses). */
const MAX_DECLARATION_TEXTS = 1024;

/**
 * Turns the texts encodedSlices made back into slices. A declaration whose text it has seen is not
 * parsed again: the slice gets the object parsed the first time (equal text, equal declaration).
 */
export class UpdateDecoder {
  private readonly declarations = new Map<string, Declaration>();

  decode(encoded: string): ZoneUpdate {
    const end = encoded.indexOf('\n');
    if (end < 0) return JSON.parse(encoded) as ZoneUpdate;
    const update = JSON.parse(encoded.slice(0, end)) as ZoneUpdate;
    const declarations: Declaration[] = [];
    for (let at = end + 1; at <= encoded.length; ) {
      let next = encoded.indexOf('\n', at);
      if (next < 0) next = encoded.length;
      // A view of the message (V8 slices, not copies, a substring): looked up, and copied only when new.
      declarations.push(this.declaration(encoded.slice(at, next)));
      at = next + 1;
    }
    for (const put of update.put) {
      if (!('entry' in put)) continue;
      const line = put.entry.declaration as unknown as number;
      const declaration = declarations[line];
      if (declaration === undefined) throw new Error(`zone update: no declaration text ${line}`);
      put.entry.declaration = declaration;
    }
    return update;
  }

  private declaration(text: string): Declaration {
    const known = this.declarations.get(text);
    if (known !== undefined) return known;
    const declaration = JSON.parse(text) as Declaration;
    if (this.declarations.size >= MAX_DECLARATION_TEXTS) this.declarations.clear();
    // A key of its own, not a view that would keep the whole message alive.
    this.declarations.set(Buffer.from(text).toString(), declaration);
    return declaration;
  }
}
