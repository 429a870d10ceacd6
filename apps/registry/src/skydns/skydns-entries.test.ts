import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { instanceRecord } from '../testing/fixtures.js';
import { nameServerEntry, skydnsEntries, srvEntries } from './skydns-entries.js';
import { skydnsName, skydnsPath } from './skydns-path.js';

const SUMMARIZE = 'Summarise a text to a given length.';

/** The fixture record with a description on its operation (it also serves `writing`). */
function described() {
  const record = instanceRecord();
  record.declaration.capabilities.summarize!.description = SUMMARIZE;
  return record;
}

describe('skydnsEntries', () => {
  it('publishes address, role SRV, generic SRV, DNS-AID TXTs and index TXT in CoreDNS format', () => {
    const entries = skydnsEntries(described(), 'agents.internal', 15);
    const byKey = Object.fromEntries(entries.map((entry) => [entry.key, JSON.parse(entry.value)]));
    expect(byKey).toEqual({
      '/skydns/internal/agents/summarizer-v2-3f9c': { host: '127.0.0.1', ttl: 15 },
      '/skydns/internal/agents/_tcp/_agent/summarizer-v2-3f9c': {
        host: 'summarizer-v2-3f9c.agents.internal',
        port: 8001,
        priority: 10,
        weight: 80,
        ttl: 15,
      },
      '/skydns/internal/agents/_tcp/_summarize/summarizer-v2-3f9c': {
        host: 'summarizer-v2-3f9c.agents.internal',
        port: 8001,
        priority: 10,
        weight: 80,
        ttl: 15,
      },
      '/skydns/internal/agents/_tcp/_writing/summarizer-v2-3f9c': {
        host: 'summarizer-v2-3f9c.agents.internal',
        port: 8001,
        priority: 10,
        weight: 80,
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_a2a/_summarize/summarizer-v2-3f9c': {
        text: 'capabilities=summarize',
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_a2a/_summarize/_description/summarizer-v2-3f9c': {
        text: `description=${SUMMARIZE}`,
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_index/_summarize/summarizer-v2-3f9c': {
        text: 'agents=summarize:a2a',
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_a2a/_writing/summarizer-v2-3f9c': {
        text: 'capabilities=writing',
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_a2a/_writing/_description/summarizer-v2-3f9c': {
        text: `description=${SUMMARIZE}`,
        ttl: 15,
      },
      '/skydns/internal/agents/_agents/_index/_writing/summarizer-v2-3f9c': {
        text: 'agents=writing:a2a',
        ttl: 15,
      },
    });
    // Field order as CoreDNS's own examples: host, port, priority, weight, ttl.
    expect(entries.find((e) => e.key.endsWith('_summarize/summarizer-v2-3f9c'))?.value).toBe(
      '{"host":"summarizer-v2-3f9c.agents.internal","port":8001,"priority":10,"weight":80,"ttl":15}',
    );
  });

  it('applies published weights, per capability first, and keeps SRV weights at least 1', () => {
    const record = instanceRecord();
    record.declaration.priority = 0;
    const entries = skydnsEntries(record, 'agents.internal', 15, {
      priority: 20,
      byCapability: { summarize: { weight: 7, priority: 5 } },
    });
    const value = (suffix: string) => JSON.parse(entries.find((e) => e.key.endsWith(suffix))!.value);
    expect(value('_summarize/summarizer-v2-3f9c')).toMatchObject({ priority: 5, weight: 7 });
    expect(value('_agent/summarizer-v2-3f9c')).toMatchObject({ priority: 20, weight: 1 });
  });

  it('maps every key back to the DNS name it answers, per CoreDNS msg.Domain', () => {
    const names = skydnsEntries(described(), 'agents.internal', 15).map((entry) => skydnsName(entry.key));
    expect(names).toEqual([
      'summarizer-v2-3f9c.agents.internal.',
      'summarizer-v2-3f9c._agent._tcp.agents.internal.',
      'summarizer-v2-3f9c._summarize._tcp.agents.internal.',
      'summarizer-v2-3f9c._writing._tcp.agents.internal.',
      'summarizer-v2-3f9c._summarize._a2a._agents.agents.internal.',
      'summarizer-v2-3f9c._description._summarize._a2a._agents.agents.internal.',
      'summarizer-v2-3f9c._summarize._index._agents.agents.internal.',
      'summarizer-v2-3f9c._writing._a2a._agents.agents.internal.',
      'summarizer-v2-3f9c._description._writing._a2a._agents.agents.internal.',
      'summarizer-v2-3f9c._writing._index._agents.agents.internal.',
    ]);
  });

  it('leaves the description out when the declaration has none, and names the zone’s NS in ns.dns', () => {
    const keys = skydnsEntries(instanceRecord(), 'agents.internal', 15).map((entry) => entry.key);
    expect(keys.filter((key) => key.includes('_description'))).toEqual([]);
    expect(keys).toContain('/skydns/internal/agents/_agents/_a2a/_writing/summarizer-v2-3f9c');
    const ns = nameServerEntry('agents.internal', '10.96.0.10', 15);
    expect(ns).toEqual({
      key: '/skydns/internal/agents/dns/ns/ns',
      value: '{"host":"10.96.0.10","ttl":15}',
    });
    expect(skydnsName(ns.key)).toBe('ns.ns.dns.agents.internal.');
  });

  it('rewrites only the SRV messages for a weight change, exactly as the full set carries them', () => {
    const weights = { priority: 30, weight: 7 };
    const srv = srvEntries(instanceRecord(), 'agents.internal', 15, weights);
    expect(srv.map((entry) => skydnsName(entry.key))).toEqual([
      'summarizer-v2-3f9c._agent._tcp.agents.internal.',
      'summarizer-v2-3f9c._summarize._tcp.agents.internal.',
      'summarizer-v2-3f9c._writing._tcp.agents.internal.',
    ]);
    for (const entry of srv) expect(JSON.parse(entry.value)).toMatchObject({ priority: 30, weight: 7 });
    const all = skydnsEntries(instanceRecord(), 'agents.internal', 15, weights);
    for (const entry of srv) expect(all).toContainEqual(entry);
    // What is left out carries no weight.
    for (const entry of all.filter((e) => !srv.some((s) => s.key === e.key)))
      expect(JSON.parse(entry.value)).not.toHaveProperty('weight');
  });

  it('uses the zone given', () => {
    const keys = skydnsEntries(instanceRecord('a-1234'), 'svc.example.org', 3).map((entry) => entry.key);
    expect(keys[0]).toBe('/skydns/org/example/svc/a-1234');
    expect(JSON.parse(skydnsEntries(instanceRecord('a-1234'), 'svc.example.org', 3)[0]!.value).ttl).toBe(3);
  });
});

describe('skydnsPath / skydnsName', () => {
  it('follows the documented example', () => {
    expect(skydnsPath('service.staging.skydns.local.')).toBe('/skydns/local/skydns/staging/service');
    expect(skydnsName('/skydns/local/skydns/staging/service')).toBe('service.staging.skydns.local.');
    expect(skydnsName('/skydns/local/skydns/staging/service/')).toBe('service.staging.skydns.local.');
  });

  it('round-trips any name of DNS labels', () => {
    const label = fc.stringMatching(/^[a-z_][a-z0-9-]{0,20}$/);
    fc.assert(
      fc.property(fc.array(label, { minLength: 1, maxLength: 6 }), (labels) => {
        const name = `${labels.join('.')}.`;
        expect(skydnsName(skydnsPath(name))).toBe(name);
      }),
    );
  });
});

describe('skydnsEntries keys', () => {
  it('equal skydnsPath of the DNS name each entry answers', () => {
    for (const entry of skydnsEntries(instanceRecord(), 'agents.internal', 15)) {
      expect(skydnsPath(skydnsName(entry.key))).toBe(entry.key);
    }
  });
});
