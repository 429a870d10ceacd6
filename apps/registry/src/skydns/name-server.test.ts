import { ReachConfig } from '@agent-reach/config';
import { describe, expect, it } from 'vitest';
import { nameServerSkydnsEntry } from './name-server.js';

const config = (dns: Record<string, unknown>) => ReachConfig.parse({ dns });

describe('nameServerSkydnsEntry', () => {
  it('names the DNS server callers query, else the responder’s concrete address', () => {
    expect(nameServerSkydnsEntry(config({ server: '10.96.0.10:53' }), 15)).toEqual({
      key: '/skydns/internal/agents/dns/ns/ns',
      value: '{"host":"10.96.0.10","ttl":15}',
    });
    expect(
      nameServerSkydnsEntry(
        config({ zone: 'reach.example', server: 'coredns:53', listen: '10.0.0.5:8053' }),
        5,
      ),
    ).toEqual({ key: '/skydns/example/reach/dns/ns/ns', value: '{"host":"10.0.0.5","ttl":5}' });
  });

  it('writes none when neither is an address CoreDNS can put in an NS answer', () => {
    expect(
      nameServerSkydnsEntry(config({ server: 'coredns:53', listen: '0.0.0.0:8053' }), 15),
    ).toBeUndefined();
  });
});
