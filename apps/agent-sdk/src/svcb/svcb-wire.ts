import { err, isReachError, ok, type ReachError, type Result } from '../protocol/errors.js';
import { checkKeyNumber } from './svcb-keys.js';
import { nameFromWire, nameToWire } from './svcb-name.js';
import { paramsFromWire, paramsToWire, type WireParam } from './svcb-params.js';
import { invalidSvcb, type SvcbRecord, type SvcParams } from './svcb-types.js';

const MAX_RDATA = 0xffff;

/** True when typed params hold at least one key. */
export function hasParams(params: SvcParams | undefined): boolean {
  return Object.entries(params ?? {}).some(
    ([field, v]) => v !== undefined && v !== false && !(field === 'keys' && Object.keys(v).length === 0),
  );
}

/** Checks priority and the AliasMode rule, and returns the params sorted in wire form. */
export function recordToWireParams(record: SvcbRecord): WireParam[] {
  if (typeof record !== 'object' || record === null) throw invalidSvcb('an SVCB record must be an object');
  const { priority, target, params } = record;
  if (!Number.isInteger(priority) || priority < 0 || priority > 0xffff) {
    throw invalidSvcb(`SvcPriority ${priority} is not an integer 0-65535`);
  }
  if (typeof target !== 'string') throw invalidSvcb('TargetName must be a string');
  // RFC 9460 section 2.4.2: AliasMode records SHOULD NOT carry SvcParams; we never publish any.
  if (priority === 0 && hasParams(params))
    throw invalidSvcb('an AliasMode record (priority 0) carries no SvcParams');
  return paramsToWire(params ?? {});
}

/**
 * Encodes SVCB/HTTPS RDATA (RFC 9460 section 2.2): priority, uncompressed TargetName, params in
 * increasing key order. Throws ReachError `INVALID_SVCB` on any invalid field.
 */
export function encodeSvcbRdata(record: SvcbRecord): Buffer {
  const params = recordToWireParams(record);
  const target = nameToWire(record.target);
  let size = 2 + target.length;
  for (const p of params) {
    if (p.value.length > MAX_RDATA) throw invalidSvcb(`the value of key${p.key} is over 65535 octets`);
    size += 4 + p.value.length;
  }
  if (size > MAX_RDATA) throw invalidSvcb(`RDATA would be ${size} octets, over 65535`);
  const out = Buffer.alloc(size);
  out.writeUInt16BE(record.priority, 0);
  out.set(target, 2);
  let at = 2 + target.length;
  for (const { key, value } of params) {
    out.writeUInt16BE(key, at);
    out.writeUInt16BE(value.length, at + 2);
    out.set(value, at + 4);
    at += 4 + value.length;
  }
  return out;
}

/**
 * Decodes SVCB/HTTPS RDATA and applies every rule of RFC 9460 section 2.2 and the per-key formats.
 * AliasMode params are ignored, as section 2.4.2 requires. Throws ReachError `INVALID_SVCB`.
 */
export function decodeSvcbRdata(rdata: Uint8Array): SvcbRecord {
  if (!(rdata instanceof Uint8Array)) throw invalidSvcb('RDATA must be a Uint8Array');
  if (rdata.length < 3) throw invalidSvcb(`RDATA of ${rdata.length} octets is too short for SVCB`);
  const priority = (rdata[0]! << 8) | rdata[1]!;
  const { name: target, next } = nameFromWire(rdata, 2);
  if (priority === 0) return { priority, target, params: {} };
  const wire: WireParam[] = [];
  for (let at = next; at < rdata.length; ) {
    if (at + 4 > rdata.length) throw invalidSvcb('RDATA ends inside a SvcParam header');
    const key = (rdata[at]! << 8) | rdata[at + 1]!;
    const len = (rdata[at + 2]! << 8) | rdata[at + 3]!;
    if (at + 4 + len > rdata.length) throw invalidSvcb(`RDATA ends inside the value of key${key}`);
    const prev = wire[wire.length - 1];
    if (prev !== undefined && key <= prev.key) {
      throw invalidSvcb(`SvcParamKeys are not in strictly increasing order (key${key} after key${prev.key})`);
    }
    wire.push({ key: checkKeyNumber(key), value: rdata.subarray(at + 4, at + 4 + len) });
    at += 4 + len;
  }
  return { priority, target, params: paramsFromWire(wire) };
}

/** Runs `fn`, turning an `INVALID_SVCB` ReachError into an error value; anything else still throws. */
export function asResult<T>(fn: () => T): Result<T, ReachError> {
  try {
    return ok(fn());
  } catch (e) {
    if (isReachError(e) && e.code === 'INVALID_SVCB') return err(e);
    throw e;
  }
}

/** `decodeSvcbRdata` as a value: `{ok:true,value}` or `{ok:false,error}` for records read off the network. */
export function safeDecodeSvcbRdata(rdata: Uint8Array): Result<SvcbRecord, ReachError> {
  return asResult(() => decodeSvcbRdata(rdata));
}
