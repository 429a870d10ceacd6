/**
 * SVCB / HTTPS RDATA codec (RFC 9460): wire, presentation, dns-packet glue and our private card keys.
 * Encoders, printers and `decode…`/`parse…` throw ReachError `INVALID_SVCB`; the `safe…`,
 * `fromDnsPacketAnswer`, `readSvcbAnswers` and `readAgentCard` forms return `{ok,value}|{ok,error}`.
 */
export {
  AGENT_BAP_KEY,
  AGENT_CARD_SHA256_KEY,
  AGENT_CARD_URL_KEY,
  type AgentCardRef,
  agentCardDigest,
  getTextParam,
  readAgentCard,
  setTextParam,
  withAgentCard,
} from './svcb-agent-card.js';
export {
  DNS_PACKET_TYPE,
  type DnsPacketAnswerLike,
  fromDnsPacketAnswer,
  HTTPS_TYPE_CODE,
  readSvcbAnswers,
  SVCB_TYPE_CODE,
  type SvcbAnswer,
  svcbQuestion,
  svcbRrTypeOf,
  toDnsPacketAnswer,
} from './svcb-dns-packet.js';
export {
  DNS_AID_KEYS,
  INVALID_SVC_PARAM_KEY,
  PRIVATE_USE_KEY_MIN,
  parseSvcParamKey,
  SVC_PARAM_KEYS,
  svcParamKeyName,
} from './svcb-keys.js';
export {
  canonicalName,
  formatSvcbPresentation,
  parseSvcbPresentation,
  safeParseSvcbPresentation,
} from './svcb-presentation.js';
export type { SvcbRecord, SvcbRrType, SvcParamKeyName, SvcParams } from './svcb-types.js';
export { decodeSvcbRdata, encodeSvcbRdata, safeDecodeSvcbRdata } from './svcb-wire.js';
export { formatSvcbZoneLine, parseSvcbZoneLine, type SvcbZoneRecord } from './svcb-zone-line.js';
