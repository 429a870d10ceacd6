import type { ReachError, Result } from '../protocol/errors.js';
import { decodeCharString, encodeCharString } from './svcb-charstring.js';
import { isTypedKey, parseSvcParamKey, svcParamKeyName } from './svcb-keys.js';
import { nameFromWire, nameToWire } from './svcb-name.js';
import { TEXT_CODECS } from './svcb-param-text.js';
import { codecFor } from './svcb-params.js';
import { tokenizeRecord } from './svcb-tokenize.js';
import { invalidSvcb, type SvcbRecord, type SvcParams } from './svcb-types.js';
import { asResult, decodeSvcbRdata, recordToWireParams } from './svcb-wire.js';

/** The absolute presentation form of a domain name (`foo.example.com.`, `.`). */
export function canonicalName(name: string): string {
  return nameFromWire(nameToWire(name), 0).name;
}

/** Parses one `key[=value]` token into `params`, refusing a key seen before (RFC 9460 section 2.1). */
function parseParam(token: string, params: SvcParams, seen: Set<number>): void {
  const eq = token.indexOf('=');
  const keyText = eq < 0 ? token : token.slice(0, eq);
  const raw = eq < 0 ? '' : token.slice(eq + 1);
  if (eq >= 0 && raw === '')
    throw invalidSvcb(`"${token}" has "=" but no value (write ${keyText}="" or ${keyText})`);
  const { key, generic } = parseSvcParamKey(keyText);
  if (seen.has(key)) throw invalidSvcb(`SvcParamKey ${svcParamKeyName(key)} appears more than once`);
  seen.add(key);
  if (!isTypedKey(key)) {
    params.keys ??= {};
    params.keys[key] = decodeCharString(raw);
    return;
  }
  const text = TEXT_CODECS[key]!;
  if (!generic && text.noEscapes && raw.includes('\\')) {
    throw invalidSvcb(`the value of ${keyText} must not contain escape sequences`);
  }
  const value = decodeCharString(raw);
  if (!generic && !text.flag && value.length === 0) throw invalidSvcb(`${keyText} needs a non-empty value`);
  // keyNNNNN carries the wire value itself (RFC 9460 section 2.1), even for a registered key.
  const typed = generic ? codecFor(key).fromWire(value) : text.fromValue(value);
  (params as Record<string, unknown>)[text.field] = typed;
}

/** Parses RDATA in RFC 3597 generic form: `\# <length> <hex>...`. */
function parseGenericRdata(tokens: readonly string[]): SvcbRecord {
  const length = tokens[1];
  if (length === undefined || !/^[0-9]+$/.test(length))
    throw invalidSvcb('\\# must be followed by the RDATA length');
  const hex = tokens.slice(2).join('');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(hex)) throw invalidSvcb('generic RDATA must be pairs of hex digits');
  if (hex.length / 2 !== Number(length)) {
    throw invalidSvcb(`generic RDATA says ${Number(length)} octets but has ${hex.length / 2}`);
  }
  return decodeSvcbRdata(Buffer.from(hex, 'hex'));
}

/** Parses RDATA tokens: `SvcPriority TargetName SvcParams...` or the generic `\#` form. */
export function parseRdataTokens(tokens: readonly string[]): SvcbRecord {
  if (tokens[0] === '\\#') return parseGenericRdata(tokens);
  const [priorityText, targetText, ...paramTokens] = tokens;
  if (priorityText === undefined || targetText === undefined) {
    throw invalidSvcb('SVCB RDATA needs a SvcPriority and a TargetName');
  }
  if (!/^[0-9]{1,5}$/.test(priorityText) || Number(priorityText) > 0xffff) {
    throw invalidSvcb(`SvcPriority "${priorityText}" is not a decimal integer 0-65535`);
  }
  const priority = Number(priorityText);
  if (priority === 0 && paramTokens.length > 0) {
    throw invalidSvcb('an AliasMode record (priority 0) must not carry SvcParams');
  }
  const params: SvcParams = {};
  const seen = new Set<number>();
  for (const token of paramTokens) parseParam(token, params, seen);
  const record: SvcbRecord = { priority, target: canonicalName(targetText), params };
  recordToWireParams(record); // every value and cross-key rule, as the wire encoder checks them
  return record;
}

/**
 * Parses the presentation form of SVCB/HTTPS RDATA (RFC 9460 section 2.1, Appendix A), e.g.
 * `1 . alpn=h2,h3 port=8443`; `( )` may span lines and `;` starts a comment. Throws `INVALID_SVCB`.
 */
export function parseSvcbPresentation(text: string): SvcbRecord {
  if (typeof text !== 'string') throw invalidSvcb('presentation text must be a string');
  return parseRdataTokens(tokenizeRecord(text));
}

/** `parseSvcbPresentation` as a value: `{ok:true,value}` or `{ok:false,error}`. */
export function safeParseSvcbPresentation(text: string): Result<SvcbRecord, ReachError> {
  return asResult(() => parseSvcbPresentation(text));
}

/**
 * Prints SVCB/HTTPS RDATA on one line in presentation form: keys in increasing order, values
 * normalised (registered names, RFC 5952 addresses) and quoted or escaped only where needed.
 */
export function formatSvcbPresentation(record: SvcbRecord): string {
  const wire = recordToWireParams(record);
  const parts = [String(record.priority), canonicalName(record.target)];
  for (const { key, value } of wire) {
    const name = svcParamKeyName(key);
    const text = isTypedKey(key) ? TEXT_CODECS[key]!.toValue(codecFor(key).fromWire(value) as never) : value;
    parts.push(text.length === 0 ? name : `${name}=${encodeCharString(text)}`);
  }
  return parts.join(' ');
}
