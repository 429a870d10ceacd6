import {
  err,
  isReachError,
  ok,
  publishedCapabilities,
  ReachError,
  type Result,
} from '@agent-reach/sdk/protocol';
import { type SvcParams, withAgentCard } from '@agent-reach/sdk/svcb';
import type { InstanceRecord } from '../store/records.js';
import { absoluteName, HOST_LABEL, RESERVED_LABELS, ZoneNames } from './names.js';
import { addressRr, svcbRr, type ZoneRr } from './rr.js';

/** The well-known card file name published as key65409. */
export const AGENT_CARD_WELL_KNOWN = 'agent-card.json';

/** One instance's DNS data, encoded once per registration change and reused by every rebuild. */
export interface InstanceEntry {
  readonly record: InstanceRecord;
  /** Relative owner name of the instance (its label). */
  readonly name: string;
  /** Absolute target name (`<instance>.<zone>.`). */
  readonly target: string;
  readonly capabilities: readonly string[];
  readonly address: { readonly type: number; readonly rr: ZoneRr };
  /** `1 . alpn=… port=…` at the instance's own name. */
  readonly selfSvcb: ZoneRr;
  /** `1 <instance>.<zone>. …` for the capability index; re-prioritised per capability. */
  readonly indexSvcb: ZoneRr;
  readonly port: number;
}

/** The SvcParams every SVCB record of an instance carries (ARCHITECTURE section 3). */
export function instanceSvcParams(record: InstanceRecord): SvcParams {
  const { endpoint } = record;
  const hint = endpoint.host.includes(':') ? { ipv6hint: [endpoint.host] } : { ipv4hint: [endpoint.host] };
  return withAgentCard(
    { alpn: [...endpoint.alpn], port: endpoint.port, ...hint },
    { url: record.card_url, sha256: record.card_sha256, wellKnown: AGENT_CARD_WELL_KNOWN },
  );
}

/** Encodes an instance's records, or says why it cannot be published. */
export function instanceEntry(record: InstanceRecord, apex: string): Result<InstanceEntry, ReachError> {
  const label = record.instance_id;
  if (!HOST_LABEL.test(label) || RESERVED_LABELS.has(label)) {
    return err(
      new ReachError('INVALID_DECLARATION', `instance id "${label}" is not a usable DNS host label`, {
        data: { instance_id: label },
      }),
    );
  }
  const name = ZoneNames.instance(label);
  const target = absoluteName(name, apex);
  try {
    const params = instanceSvcParams(record);
    return ok({
      record,
      name,
      target,
      capabilities: publishedCapabilities(record.declaration),
      address: addressRr(record.endpoint.host),
      selfSvcb: svcbRr({ priority: 1, target: '.', params }, name),
      indexSvcb: svcbRr({ priority: 1, target, params }, name),
      port: record.endpoint.port,
    });
  } catch (cause) {
    if (isReachError(cause)) return err(cause);
    return err(new ReachError('INVALID_SVCB', `instance "${label}": ${String(cause)}`, { cause }));
  }
}
