import { latin1Bytes, latin1Text } from './svcb-charstring.js';
import { ipv4FromBytes, ipv4ToBytes, ipv6FromBytes, ipv6ToBytes } from './svcb-ip.js';
import {
  checkKeyNumber,
  isTypedKey,
  parseSvcParamKey,
  SVC_PARAM_KEYS,
  svcParamKeyName,
} from './svcb-keys.js';
import { invalidSvcb, type SvcParams } from './svcb-types.js';

/** One SvcParam in wire form. */
export interface WireParam {
  key: number;
  value: Uint8Array;
}

/** The `SvcParams` fields that hold a typed key (everything but `keys`). */
export type TypedField = Exclude<keyof SvcParams, 'keys'>;
type FieldValue<F extends TypedField> = NonNullable<SvcParams[F]>;

/** How one typed key moves between its `SvcParams` field and its wire value; both sides validate. */
export interface KeyCodec<F extends TypedField> {
  key: number;
  field: F;
  toWire(value: FieldValue<F>): Uint8Array;
  fromWire(bytes: Uint8Array): FieldValue<F>;
}

const u16s = (values: readonly number[]) => {
  const out = new Uint8Array(values.length * 2);
  for (let i = 0; i < values.length; i++) {
    out[2 * i] = values[i]! >> 8;
    out[2 * i + 1] = values[i]! & 0xff;
  }
  return out;
};
const readU16s = (b: Uint8Array) =>
  Array.from({ length: b.length / 2 }, (_, i) => (b[2 * i]! << 8) | b[2 * i + 1]!);
const isU16 = (n: number) => Number.isInteger(n) && n >= 0 && n <= 0xffff;

function nonEmptyList<T>(value: readonly T[], name: string): readonly T[] {
  if (!Array.isArray(value) || value.length === 0) throw invalidSvcb(`${name} needs at least one item`);
  return value;
}

function fixedItems(bytes: Uint8Array, size: number, name: string): void {
  if (bytes.length === 0 || bytes.length % size !== 0) {
    throw invalidSvcb(`${name} must be a non-empty multiple of ${size} octets, got ${bytes.length}`);
  }
}

function flag(key: number, field: 'noDefaultAlpn' | 'ohttp', name: string): KeyCodec<typeof field> {
  return {
    key,
    field,
    toWire: (on) => {
      if (on !== true) throw invalidSvcb(`${name} is a flag: true when present`);
      return new Uint8Array(0);
    },
    fromWire: (b) => {
      if (b.length !== 0) throw invalidSvcb(`${name} must have an empty value`);
      return true;
    },
  };
}

const mandatory: KeyCodec<'mandatory'> = {
  key: 0,
  field: 'mandatory',
  toWire: (names) => {
    const keys = nonEmptyList(names, 'mandatory').map((n) => parseSvcParamKey(n).key);
    if (keys.includes(0)) throw invalidSvcb('mandatory must not list itself');
    if (new Set(keys).size !== keys.length) throw invalidSvcb('mandatory lists a key twice');
    return u16s(keys.sort((a, b) => a - b));
  },
  fromWire: (b) => {
    if (b.length === 0 || b.length % 2 !== 0)
      throw invalidSvcb('mandatory must be a non-empty list of 2-octet keys');
    const keys = readU16s(b);
    if (keys.includes(0)) throw invalidSvcb('mandatory must not list itself');
    if (keys.some((k, i) => i > 0 && k <= keys[i - 1]!))
      throw invalidSvcb('mandatory keys are not strictly increasing');
    return keys.map((k) => svcParamKeyName(checkKeyNumber(k)));
  },
};

const alpn: KeyCodec<'alpn'> = {
  key: 1,
  field: 'alpn',
  toWire: (ids) => {
    const items: Uint8Array[] = [];
    let size = 0;
    for (const id of nonEmptyList(ids, 'alpn')) {
      const bytes = latin1Bytes(id, 'alpn id');
      if (bytes.length < 1 || bytes.length > 255) throw invalidSvcb(`alpn id "${id}" must be 1-255 octets`);
      items.push(bytes);
      size += 1 + bytes.length;
    }
    const out = new Uint8Array(size);
    let at = 0;
    for (const bytes of items) {
      out[at] = bytes.length;
      out.set(bytes, at + 1);
      at += 1 + bytes.length;
    }
    return out;
  },
  fromWire: (b) => {
    if (b.length === 0) throw invalidSvcb('alpn needs at least one id');
    const ids: string[] = [];
    for (let i = 0; i < b.length; ) {
      const len = b[i]!;
      if (len === 0) throw invalidSvcb('alpn has an empty id');
      if (i + 1 + len > b.length) throw invalidSvcb('alpn ids do not exactly fill the value');
      ids.push(latin1Text(b.subarray(i + 1, i + 1 + len)));
      i += 1 + len;
    }
    return ids;
  },
};

const port: KeyCodec<'port'> = {
  key: 3,
  field: 'port',
  toWire: (p) => {
    if (!isU16(p)) throw invalidSvcb(`port ${p} is not an integer 0-65535`);
    return u16s([p]);
  },
  fromWire: (b) => {
    if (b.length !== 2) throw invalidSvcb(`port must be 2 octets, got ${b.length}`);
    return readU16s(b)[0]!;
  },
};

function hints(key: number, field: 'ipv4hint' | 'ipv6hint', size: number): KeyCodec<typeof field> {
  const [toBytes, fromBytes] = size === 4 ? [ipv4ToBytes, ipv4FromBytes] : [ipv6ToBytes, ipv6FromBytes];
  return {
    key,
    field,
    toWire: (addrs) => {
      const list = nonEmptyList(addrs, field);
      const out = new Uint8Array(list.length * size);
      for (let i = 0; i < list.length; i++) out.set(toBytes(String(list[i])), i * size);
      return out;
    },
    fromWire: (b) => {
      fixedItems(b, size, field);
      return Array.from({ length: b.length / size }, (_, i) => fromBytes(b, i * size));
    },
  };
}

const ech: KeyCodec<'ech'> = {
  key: 5,
  field: 'ech',
  toWire: (config) => {
    if (!(config instanceof Uint8Array) || config.length === 0)
      throw invalidSvcb('ech must be non-empty bytes');
    return new Uint8Array(config);
  },
  fromWire: (b) => {
    if (b.length === 0) throw invalidSvcb('ech must not be empty');
    return new Uint8Array(b);
  },
};

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const dohpath: KeyCodec<'dohpath'> = {
  key: 7,
  field: 'dohpath',
  toWire: (template) => {
    if (typeof template !== 'string' || template === '')
      throw invalidSvcb('dohpath must be a non-empty string');
    const bytes = new TextEncoder().encode(template);
    // A lone surrogate would be silently replaced by U+FFFD; refuse it instead.
    if (utf8Strict.decode(bytes) !== template) throw invalidSvcb('dohpath is not well-formed Unicode');
    return bytes;
  },
  fromWire: (b) => {
    if (b.length === 0) throw invalidSvcb('dohpath must not be empty');
    try {
      return utf8Strict.decode(b);
    } catch {
      throw invalidSvcb('dohpath is not valid UTF-8');
    }
  },
};

const tlsSupportedGroups: KeyCodec<'tlsSupportedGroups'> = {
  key: 9,
  field: 'tlsSupportedGroups',
  toWire: (groups) => {
    const list = nonEmptyList(groups, 'tls-supported-groups');
    if (!list.every(isU16)) throw invalidSvcb('tls-supported-groups entries must be integers 0-65535');
    if (new Set(list).size !== list.length) throw invalidSvcb('tls-supported-groups lists a group twice');
    return u16s(list);
  },
  fromWire: (b) => {
    fixedItems(b, 2, 'tls-supported-groups');
    const groups = readU16s(b);
    if (new Set(groups).size !== groups.length) throw invalidSvcb('tls-supported-groups lists a group twice');
    return groups;
  },
};

/** The codec of every typed key, indexed by key number. */
export const KEY_CODECS: readonly KeyCodec<TypedField>[] = [
  mandatory,
  alpn,
  flag(2, 'noDefaultAlpn', 'no-default-alpn'),
  port,
  hints(4, 'ipv4hint', 4),
  ech,
  hints(6, 'ipv6hint', 16),
  dohpath,
  flag(8, 'ohttp', 'ohttp'),
  tlsSupportedGroups,
] as unknown as readonly KeyCodec<TypedField>[];

const FIELDS = new Set<string>([...KEY_CODECS.map((c) => c.field), 'keys']);

/** The codec for a typed key number (0-9). */
export function codecFor(key: number): KeyCodec<TypedField> {
  return KEY_CODECS[key]!;
}

function hasKey(params: readonly WireParam[], key: number): boolean {
  for (const p of params) if (p.key === key) return true;
  return false;
}

/** Checks the cross-key rules (RFC 9460 sections 7.1.1 and 8) on wire params sorted by key. */
export function checkSelfConsistent(params: readonly WireParam[]): void {
  const m = params.find((p) => p.key === SVC_PARAM_KEYS.mandatory);
  for (const k of m === undefined ? [] : readU16s(m.value)) {
    if (!hasKey(params, k))
      throw invalidSvcb(`mandatory lists ${svcParamKeyName(k)} but the record has no such key`);
  }
  if (hasKey(params, SVC_PARAM_KEYS['no-default-alpn']) && !hasKey(params, SVC_PARAM_KEYS.alpn)) {
    throw invalidSvcb('no-default-alpn requires alpn');
  }
}

/** Turns typed params into wire params sorted by key, validating every value and the cross-key rules. */
export function paramsToWire(params: SvcParams): WireParam[] {
  const unknown: string[] = [];
  for (const field of Object.keys(params ?? {})) if (!FIELDS.has(field)) unknown.push(field);
  if (unknown.length > 0) throw invalidSvcb(`unknown SvcParams field(s): ${unknown.join(', ')}`);
  const out: WireParam[] = [];
  for (const codec of KEY_CODECS) {
    const value = params[codec.field];
    if (value === undefined || value === false) continue;
    out.push({ key: codec.key, value: codec.toWire(value as never) });
  }
  const keys = params.keys ?? {};
  if (typeof keys !== 'object' || Array.isArray(keys) || keys instanceof Map) {
    throw invalidSvcb('keys must be a plain object of key number to bytes');
  }
  // Object.keys, not Object.entries: on these sparse integer keys entries costs several times more.
  for (const name of Object.keys(keys)) {
    const value = (keys as Record<string, unknown>)[name];
    const key = checkKeyNumber(Number(name));
    if (String(key) !== name) throw invalidSvcb(`keys entry "${name}" is not a key number`);
    if (isTypedKey(key)) throw invalidSvcb(`key${key} has a typed field: use "${codecFor(key).field}"`);
    if (!(value instanceof Uint8Array)) throw invalidSvcb(`key${key} must be a Uint8Array`);
    // No copy: both callers (encodeSvcbRdata, the presentation printer) only read the values, at once.
    out.push({ key, value });
  }
  out.sort((a, b) => a.key - b.key);
  checkSelfConsistent(out);
  return out;
}

/** Turns wire params (already in strictly increasing key order) into typed params. */
export function paramsFromWire(wire: readonly WireParam[]): SvcParams {
  const params: SvcParams = {};
  for (const { key, value } of wire) {
    if (isTypedKey(key)) {
      const codec = codecFor(key);
      (params as Record<string, unknown>)[codec.field] = codec.fromWire(value);
    } else {
      params.keys ??= {};
      params.keys[checkKeyNumber(key)] = new Uint8Array(value);
    }
  }
  checkSelfConsistent(wire);
  return params;
}
