import { joinValueList, latin1Bytes, latin1Text, splitValueList } from './svcb-charstring.js';
import { ipv4FromBytes, ipv4ToBytes, ipv6FromBytes, ipv6ToBytes } from './svcb-ip.js';
import { parseSvcParamKey, svcParamKeyName } from './svcb-keys.js';
import type { TypedField } from './svcb-params.js';
import { invalidSvcb, type SvcParams } from './svcb-types.js';

type FieldValue<F extends TypedField> = NonNullable<SvcParams[F]>;

/**
 * The presentation `value` of one typed key (RFC 9460 section 2.1), as octets after
 * character-string decoding; `noEscapes` keys must be written without backslashes.
 */
export interface TextCodec<F extends TypedField> {
  field: F;
  noEscapes: boolean;
  /** The key takes an empty value only (a flag). */
  flag: boolean;
  fromValue(value: Uint8Array): FieldValue<F>;
  toValue(typed: FieldValue<F>): Uint8Array;
}

const ascii = (text: string) => latin1Bytes(text, 'value');
const items = (value: Uint8Array) => splitValueList(value).map(latin1Text);
const list = (texts: readonly (string | number)[]) => joinValueList(texts.map((t) => ascii(String(t))));

function decimal(text: string, what: string): number {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) > 0xffff) {
    throw invalidSvcb(`${what} "${text}" is not a decimal integer 0-65535`);
  }
  return Number(text);
}

function flagCodec<F extends 'noDefaultAlpn' | 'ohttp'>(field: F, name: string): TextCodec<F> {
  return {
    field,
    noEscapes: false,
    flag: true,
    fromValue: (v) => {
      if (v.length !== 0) throw invalidSvcb(`${name} must have an empty value`);
      return true as FieldValue<F>;
    },
    toValue: () => new Uint8Array(0),
  };
}

function listCodec<F extends 'ipv4hint' | 'ipv6hint'>(field: F): TextCodec<F> {
  // Addresses come out in the form the wire decoder prints (RFC 5952 for IPv6).
  const normal =
    field === 'ipv4hint'
      ? (a: string) => ipv4FromBytes(ipv4ToBytes(a))
      : (a: string) => ipv6FromBytes(ipv6ToBytes(a));
  return {
    field,
    noEscapes: true,
    flag: false,
    fromValue: (v) => items(v).map(normal) as FieldValue<F>,
    toValue: (addrs) => list(addrs),
  };
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Text codecs of the typed keys, indexed by key number. */
export const TEXT_CODECS: readonly TextCodec<TypedField>[] = [
  {
    field: 'mandatory',
    noEscapes: true,
    flag: false,
    fromValue: (v) => {
      const keys = items(v).map((name) => parseSvcParamKey(name).key);
      if (new Set(keys).size !== keys.length) throw invalidSvcb('mandatory lists a key twice');
      return keys.sort((a, b) => a - b).map(svcParamKeyName);
    },
    toValue: (names) => list(names),
  } satisfies TextCodec<'mandatory'>,
  {
    field: 'alpn',
    noEscapes: false,
    flag: false,
    fromValue: (v) => items(v),
    toValue: (ids) => joinValueList(ids.map((id) => latin1Bytes(id, 'alpn id'))),
  } satisfies TextCodec<'alpn'>,
  flagCodec('noDefaultAlpn', 'no-default-alpn'),
  {
    field: 'port',
    noEscapes: true,
    flag: false,
    fromValue: (v) => decimal(latin1Text(v), 'port'),
    toValue: (p) => ascii(String(p)),
  } satisfies TextCodec<'port'>,
  listCodec('ipv4hint'),
  {
    field: 'ech',
    noEscapes: false,
    flag: false,
    fromValue: (v) => {
      const text = latin1Text(v);
      if (!BASE64.test(text)) throw invalidSvcb('ech must be base64 (RFC 4648 section 4)');
      return new Uint8Array(Buffer.from(text, 'base64'));
    },
    toValue: (config) => ascii(Buffer.from(config).toString('base64')),
  } satisfies TextCodec<'ech'>,
  listCodec('ipv6hint'),
  {
    field: 'dohpath',
    noEscapes: false,
    flag: false,
    fromValue: (v) => {
      try {
        return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(v);
      } catch {
        throw invalidSvcb('dohpath is not valid UTF-8');
      }
    },
    toValue: (template) => new TextEncoder().encode(template),
  } satisfies TextCodec<'dohpath'>,
  flagCodec('ohttp', 'ohttp'),
  {
    field: 'tlsSupportedGroups',
    noEscapes: true,
    flag: false,
    fromValue: (v) => items(v).map((g) => decimal(g, 'tls-supported-groups entry')),
    toValue: (groups) => list(groups),
  } satisfies TextCodec<'tlsSupportedGroups'>,
] as unknown as readonly TextCodec<TypedField>[];
