import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  capabilityTxtStrings,
  indexedCapabilities,
  indexTxtStrings,
  parseIndexTxt,
  TXT_STRING_MAX,
} from './dns-aid-txt.js';
import { capabilityQueryNames, DnsNames, ownerName } from './dns-names.js';

const capabilityId = fc.stringMatching(/^[a-z][a-z0-9_]{0,39}$/);

describe('DNS owner names', () => {
  it('spells every name of the zone, DNS-AID style for the capability SVCB', () => {
    expect(DnsNames.capabilitySvcb('writing')).toBe('_writing._a2a._agents');
    expect(DnsNames.capabilitySrv('writing')).toBe('_writing._tcp');
    expect(DnsNames.index).toBe('_index._agents');
    expect(ownerName(DnsNames.index, 'agents.internal.')).toBe('_index._agents.agents.internal');
    expect(ownerName(DnsNames.apex, 'agents.internal')).toBe('agents.internal');
    expect(capabilityQueryNames('plan', 'example.org')).toEqual({
      svcb: '_plan._a2a._agents.example.org',
      roleSrv: '_plan._tcp.example.org',
      genericSrv: '_agent._tcp.example.org',
    });
  });
});

describe('the _index._agents TXT', () => {
  it('is one agents= string while it fits', () => {
    expect(indexTxtStrings(['plan', 'summarize'])).toEqual([['agents=plan:a2a,summarize:a2a']]);
    expect(indexTxtStrings([])).toEqual([['agents=']]);
    expect(parseIndexTxt(['agents='])).toEqual([]);
  });

  it('splits a long index into whole agents= strings of at most 255 octets, and reads back every entry', () => {
    fc.assert(
      fc.property(fc.uniqueArray(capabilityId, { maxLength: 400 }), (ids) => {
        const rrs = indexTxtStrings(ids);
        for (const rr of rrs) {
          expect(rr.length).toBeLessThanOrEqual(200);
          for (const s of rr) {
            expect(Buffer.byteLength(s)).toBeLessThanOrEqual(TXT_STRING_MAX);
            expect(s.startsWith('agents=')).toBe(true);
          }
        }
        expect(indexedCapabilities(rrs.flat())).toEqual([...ids].sort());
      }),
    );
  });

  it('reads CoreDNS’s one record per capability, skips other strings and malformed entries', () => {
    expect(
      parseIndexTxt([
        'agents=plan:a2a',
        'agents=plan:a2a',
        'agents=chat:MCP, booking:a2a,broken,:a2a,x:',
        'version=1',
        'plan summarize',
      ]),
    ).toEqual([
      { name: 'plan', protocol: 'a2a' },
      { name: 'chat', protocol: 'mcp' },
      { name: 'booking', protocol: 'a2a' },
    ]);
    expect(indexedCapabilities(['agents=chat:mcp,plan:a2a'])).toEqual(['plan']);
    expect(indexedCapabilities(['agents=chat:mcp,plan:a2a'], 'mcp')).toEqual(['chat']);
  });
});

describe('the capabilities= TXT', () => {
  it('carries the capability and its description in one 255-octet string each', () => {
    expect(capabilityTxtStrings('plan')).toEqual(['capabilities=plan']);
    expect(capabilityTxtStrings('plan', '  Break a goal\ninto steps. ')).toEqual([
      'capabilities=plan',
      'description=Break a goal into steps.',
    ]);
    const long = capabilityTxtStrings('plan', 'é'.repeat(400))[1]!;
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(TXT_STRING_MAX);
    expect(long.endsWith('é…')).toBe(true);
  });
});
