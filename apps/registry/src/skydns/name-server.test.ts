import { ReachConfig } from '@agent-reach/config';
import { describe, expect, it } from 'vitest';
import { nameServerSkydnsEntry } from './name-server.js';

const config = (dns: Record<string, unknown>) => ReachConfig.parse({ dns });
const names: Record<string, string> = { 'coredns.agent-reach.svc.cluster.local': '10.96.0.10' };
const lookup = async (host: string) => names[host];

describe('nameServerSkydnsEntry', () => {
  it('names the DNS server callers query, resolving a host name once', async () => {
    expect(await nameServerSkydnsEntry(config({ server: '10.96.0.53:53' }), 15, lookup)).toEqual({
      key: '/skydns/internal/agents/dns/ns/ns',
      value: '{"host":"10.96.0.53","ttl":15}',
    });
    const k8s = config({ server: 'coredns.agent-reach.svc.cluster.local:53', listen: '0.0.0.0:8053' });
    expect(await nameServerSkydnsEntry(k8s, 15, lookup)).toEqual({
      key: '/skydns/internal/agents/dns/ns/ns',
      value: '{"host":"10.96.0.10","ttl":15}',
    });
  });

  it('falls back to the responder’s concrete address when the server name does not resolve', async () => {
    const reach = config({ zone: 'reach.example', server: 'coredns:53', listen: '10.0.0.5:8053' });
    expect(await nameServerSkydnsEntry(reach, 5, lookup)).toEqual({
      key: '/skydns/example/reach/dns/ns/ns',
      value: '{"host":"10.0.0.5","ttl":5}',
    });
  });

  it('writes none when neither gives an address CoreDNS can put in an NS answer', async () => {
    const reach = config({ server: 'coredns:53', listen: '0.0.0.0:8053' });
    expect(await nameServerSkydnsEntry(reach, 15, lookup)).toBeUndefined();
  });
});
