import { isDeepStrictEqual } from 'node:util';
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
    const key = versionKey(record);
    const shared = this.versions.get(key);
    if (shared === undefined) {
      this.versions.set(key, { declaration: record.declaration, cardSha256: record.card_sha256, records: 1 });
    } else if (
      shared.declaration === record.declaration ||
      isDeepStrictEqual(shared.declaration, record.declaration)
    ) {
      record.declaration = shared.declaration;
      if (record.card_sha256 === shared.cardSha256) record.card_sha256 = shared.cardSha256;
      shared.records++;
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
    const key = versionKey({ declaration });
    const shared = this.versions.get(key);
    if (shared === undefined) {
      this.versions.set(key, { declaration, cardSha256: '', records: 1 });
      return declaration;
    }
    if (shared.declaration !== declaration && !isDeepStrictEqual(shared.declaration, declaration))
      return declaration;
    shared.records++;
    return shared.declaration;
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
