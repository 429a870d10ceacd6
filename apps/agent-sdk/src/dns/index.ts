/** The one DNS stub client of every app: UDP with EDNS0, retries, truncated answers over one kept TCP connection. */
export {
  type DnsClient,
  type DnsClientOptions,
  type DnsQueryType,
  type DnsRecord,
  type DnsResponse,
  UdpDnsClient,
} from './dns-client.js';
