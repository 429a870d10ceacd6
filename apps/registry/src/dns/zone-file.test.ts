import { encodeSvcbRdata, parseSvcbZoneLine } from '@agent-reach/sdk/svcb';
import { describe, expect, it } from 'vitest';
import { FakeInstanceSource, makeInstance } from '../testing/fake-instance-source.js';
import { RRTYPE } from './rr.js';
import { Zone } from './zone.js';
import { exportZoneFile } from './zone-file.js';

function zone(): Zone {
  const source = new FakeInstanceSource();
  source.put(
    makeInstance('summarizer-a1', { capabilities: ['summarize'], serves: ['writing'], port: 8001 }),
    makeInstance('planner-b2', { host: 'fd00::2', capabilities: ['plan'], port: 8002 }),
  );
  return new Zone(source, { zone: 'agents.internal', ttlSeconds: 15, nameServerAddress: '127.0.0.1' });
}

describe('exportZoneFile', () => {
  it('starts with $ORIGIN, $TTL and the SOA, then every record once', () => {
    const z = zone();
    const text = exportZoneFile(z.snapshot());
    const lines = text.trimEnd().split('\n');
    expect(lines[1]).toBe('$ORIGIN agents.internal.');
    expect(lines[2]).toBe('$TTL 15');
    expect(lines[3]).toBe(
      `agents.internal.\t15\tIN\tSOA\tns.agents.internal. hostmaster.agents.internal. ${z.serial} 3600 600 86400 15`,
    );
    let records = 0;
    for (const node of z.snapshot().nodes.values())
      for (const set of node.rrsets.values()) records += set.rrs.length;
    expect(lines.filter((l) => !l.startsWith(';') && !l.startsWith('$'))).toHaveLength(records);
    expect(text).toContain('summarizer-a1.agents.internal.\t15\tIN\tA\t10.0.0.1\n');
    expect(text).toContain('planner-b2.agents.internal.\t15\tIN\tAAAA\tfd00::2\n');
    expect(text).toContain(
      '_writing._tcp.agents.internal.\t15\tIN\tSRV\t10 50 8001 summarizer-a1.agents.internal.\n',
    );
    expect(text).toContain(
      '_index._agents.agents.internal.\t15\tIN\tTXT\t"agents=plan:a2a,summarize:a2a,writing:a2a"\n',
    );
    expect(text).toMatch(
      /\n_plan\._a2a\._agents\.agents\.internal\.\t15\tIN\tTXT\t"capabilities=plan"( "description=[^"]*")?\n/,
    );
  });

  it('prints SVCB in presentation form that parses back to the same wire bytes', () => {
    const snapshot = zone().snapshot();
    const lines = exportZoneFile(snapshot)
      .split('\n')
      .filter((line) => line.includes('\tSVCB\t'));
    expect(lines).toHaveLength(5);
    for (const line of lines) {
      const parsed = parseSvcbZoneLine(line);
      const relative = parsed.owner.replace(/\.?agents\.internal\.$/, '');
      const rrs = snapshot.nodes.get(relative)!.rrsets.get(RRTYPE.SVCB)!.rrs;
      expect(rrs.map((rr) => rr.rdata.toString('hex'))).toContain(
        encodeSvcbRdata(parsed.record).toString('hex'),
      );
    }
    expect(lines.find((l) => l.startsWith('planner-b2.'))).toMatch(
      /SVCB\t1 \. mandatory=alpn,port alpn=http\/1\.1 port=8002 ipv6hint=fd00::2 key65400=http:\/\/\[fd00::2\]:8002\/\.well-known\/agent-card\.json key65401=[A-Za-z0-9_-]{43} key65402=a2a\/1$/,
    );
  });
});
