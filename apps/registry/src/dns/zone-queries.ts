import { handleMessage, type SnapshotProvider } from './packet-handler.js';
import { RRTYPE_NAME } from './rr.js';

/** A query for `name`/`type` (with EDNS 1232 unless `edns` is false), as the responder receives it: hand-built, no codec per call. */
export function queryBytes(name: string, type: number, id = 1, edns = true): Buffer {
  const labels = name.split('.').filter((label) => label.length > 0);
  const qname = Buffer.alloc(labels.reduce((n, label) => n + label.length + 1, 1));
  let at = 0;
  for (const label of labels) {
    qname[at++] = label.length;
    at += qname.write(label, at, 'latin1');
  }
  const msg = Buffer.alloc(12 + qname.length + 4 + (edns ? 11 : 0));
  msg.writeUInt16BE(id, 0);
  msg.writeUInt16BE(1, 4);
  msg.writeUInt16BE(edns ? 1 : 0, 10);
  qname.copy(msg, 12);
  let end = 12 + qname.length;
  end = msg.writeUInt16BE(type, end);
  end = msg.writeUInt16BE(1, end);
  if (!edns) return msg;
  // OPT: root owner, type 41, UDP size 1232, no flags, no options.
  msg.writeUInt16BE(41, end + 1);
  msg.writeUInt16BE(1232, end + 3);
  return msg;
}

/** Asks `zone` every type at every name it holds, over `transport`; returns how many questions were asked. */
export function answerEveryName(zone: SnapshotProvider, transport: 'udp' | 'tcp' = 'udp'): number {
  const snapshot = zone.snapshot();
  let asked = 0;
  for (const [name, node] of snapshot.nodes) {
    const owner = name === '' ? snapshot.apex : `${name}.${snapshot.apex}`;
    for (const type of node.rrsets.keys()) {
      if (RRTYPE_NAME[type] === undefined) continue;
      handleMessage(zone, queryBytes(owner, type), transport);
      asked++;
    }
  }
  return asked;
}
