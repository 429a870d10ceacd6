import type { Declaration } from '@agent-reach/sdk/protocol';
import type { InstanceRecord } from '../store/records.js';

interface SharedVersion {
  declaration: Declaration;
  cardSha256: string;
  records: number;
}

/** Distinct ALPN lists kept; past this, records keep their own arrays (ALPN lists are a handful in practice). */
const MAX_ALPN_LISTS = 256;

/**
 * The parts many live records hold equal copies of, kept once: one declaration per agent version (a
 * version's declaration never changes, so all its replicas carry the same one), its card digest and
 * agent name, and each ALPN list. Records are adopted in place, so whoever already holds one keeps
 * seeing the same object; at 100,000 instances these copies were a third of the parsed records.
 */
export class SharedParts {
  private readonly versions = new Map<string, SharedVersion>();
  private readonly alpnLists = new Map<string, string[]>();

  /** Replaces `record`'s parts with the shared equal ones (sharing them from now on when new). */
  adopt(record: InstanceRecord): void {
    const shared = this.share(record.declaration, record.card_sha256);
    if (shared !== undefined) {
      record.declaration = shared.declaration;
      if (record.card_sha256 === shared.cardSha256) record.card_sha256 = shared.cardSha256;
    }
    if (record.agent_name === record.declaration.agent_name)
      record.agent_name = record.declaration.agent_name;
    this.adoptAlpn(record);
  }

  /**
   * The shared declaration equal to `declaration` (sharing this one from now on when its version is
   * new), for a holder that keeps only the declaration of a record (the responder thread's zone
   * entries); `release` it as a record.
   */
  adoptDeclaration(declaration: Declaration): Declaration {
    return this.share(declaration, '')?.declaration ?? declaration;
  }

  /**
   * The shared declaration equal to `declaration`, or `declaration` itself when its version is not
   * shared or is shared with another one; counts no holder (a cache of parsed declarations keeps it).
   */
  sharedDeclaration(declaration: Declaration): Declaration {
    const shared = this.versions.get(versionKey({ declaration }));
    if (shared === undefined || shared.declaration === declaration) return declaration;
    return sameJson(shared.declaration, declaration) ? shared.declaration : declaration;
  }

  /**
   * Counts one more holder of `declaration`'s version and returns that version's shared parts (this
   * declaration's, when the version is new), or undefined when the version is known with another
   * declaration (then nothing is shared or counted).
   */
  private share(declaration: Declaration, cardSha256: string): SharedVersion | undefined {
    const key = versionKey({ declaration });
    const shared = this.versions.get(key);
    if (shared === undefined) {
      const version = { declaration, cardSha256, records: 1 };
      this.versions.set(key, version);
      return version;
    }
    if (shared.declaration !== declaration && !sameJson(shared.declaration, declaration)) return undefined;
    shared.records++;
    return shared;
  }

  /** Forgets a record adopted earlier, or what kept its declaration (its version's parts go with its last record). */
  release(record: Pick<InstanceRecord, 'declaration'>): void {
    const key = versionKey(record);
    const shared = this.versions.get(key);
    if (shared?.declaration !== record.declaration) return;
    if (--shared.records === 0) this.versions.delete(key);
  }

  private adoptAlpn(record: InstanceRecord): void {
    const { alpn } = record.endpoint;
    const key = alpn.join('\n');
    const shared = this.alpnLists.get(key);
    if (shared !== undefined) record.endpoint.alpn = shared;
    else if (this.alpnLists.size < MAX_ALPN_LISTS) this.alpnLists.set(key, alpn);
  }
}

const versionKey = (record: Pick<InstanceRecord, 'declaration'>): string =>
  `${record.declaration.agent_name}\n${record.declaration.version}`;

/**
 * Whether two values parsed from JSON are equal (key order aside): what a declaration is. Every
 * registration is compared so, on the main thread and the responder thread; `util.isDeepStrictEqual`
 * took ~11 µs and 1.5 KB of garbage per bench declaration, this ~0.7 µs and none to speak of.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let keys = 0;
  for (const key in x) {
    if (!Object.hasOwn(y, key) || !sameJson(x[key], y[key])) return false;
    keys++;
  }
  for (const _ in y) keys--;
  return keys === 0;
}
