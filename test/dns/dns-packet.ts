import { createRequire } from 'node:module';

// The test package has no @types/dns-packet; these are the parts of dns-packet 5.x the DNS tests use.

/** A resource record as dns-packet encodes or decodes it. */
export interface PacketRecord {
  name: string;
  type: string;
  ttl?: number;
  class?: string;
  data?: unknown;
  [field: string]: unknown;
}

/** A message to encode. */
export interface PacketInput {
  type: 'query' | 'response';
  id: number;
  flags?: number;
  questions: Array<{ name: string; type: string; class?: string }>;
  additionals?: PacketRecord[];
}

/** A decoded message. */
export interface DecodedMessage {
  id: number;
  flag_qr: boolean;
  flag_aa: boolean;
  flag_tc: boolean;
  rcode: string;
  questions: Array<{ name: string; type: string; class: string }>;
  answers: Array<PacketRecord & { ttl: number }>;
  authorities: Array<PacketRecord & { ttl: number }>;
  additionals: PacketRecord[];
}

interface DnsPacket {
  encode(packet: PacketInput): Buffer;
  decode(buf: Buffer): DecodedMessage;
}

/** dns-packet, loaded through require so the tests type-check without its @types package. */
export const dnsPacket = createRequire(import.meta.url)('dns-packet') as DnsPacket;
